package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/mcp"
)

// Server is the whole of what a server shows a model, where a snapshot
// holds only what a client of its lists relies on: who it says it is, its
// instructions, and every list with its resources. Pins, the surface diff
// and the audit read it, from a live server (GatherServer) or from a file
// (a pin file, a snapshot, a recording).
type Server struct {
	// Name is what reports call the server: its config name, else the
	// name its serverInfo gives.
	Name string
	// Info is the serverInfo as sent; nil when the server gave none.
	Info json.RawMessage
	// HasIdentity says whether Info, ProtocolVersion and Instructions are
	// known: a snapshot holds none of them.
	HasIdentity bool
	// ProtocolVersion is the version the session spoke, "" when not known.
	ProtocolVersion string
	// Instructions are the server's instructions; nil when it gave none.
	Instructions *string
	Snapshot
	// Resources are the resources listed, each as sent. HasResources says
	// whether they are known: a snapshot holds none.
	Resources    []json.RawMessage
	HasResources bool
	// ResourcesError is the error the server answered resources/list
	// with, when it did (HasResources is then false).
	ResourcesError string
	// Documents are the documents of the tools' apps (GatherDocuments),
	// by URI; nil when they were not read (a snapshot, an audit), and
	// then apps are not compared.
	Documents map[string]Document
	// Reads are what prompts/get and resources/read answered (an
	// audit's GatherReads, or a recording's responses); empty when they
	// were not read.
	Reads Reads
}

// InfoName is the name serverInfo gives, or "".
func (s Server) InfoName() string { return stringMember(s.Info, "name") }

// Era is "modern" for the 2026-07-28 era, "initialize" for the others,
// and "" when the protocol version is not known.
func (s Server) Era() string {
	switch {
	case s.ProtocolVersion == "":
		return ""
	case mcp.IsModern(s.ProtocolVersion):
		return "modern"
	}
	return "initialize"
}

// GatherServer reads the whole surface of the server l lists: the
// initialize result's serverInfo and instructions, and every list the
// server declares a capability for (Gather), resources/list with them.
// Each list is walked once per Lister, within its Budget.
func (l *Lister) GatherServer(ctx context.Context) (Server, error) {
	snap, err := l.Gather(ctx)
	if err != nil {
		return Server{}, err
	}
	s := Server{Snapshot: snap, HasResources: true}
	l.Identify(&s)
	if l.c.HasCapability(mcp.Resources.Capability) {
		items, _, err := l.walk(ctx, mcp.Resources)
		var ce *mcp.CallError
		switch {
		case len(items) == 0 && unimplemented(err):
			s.Unimplemented = append(s.Unimplemented, mcp.Resources.Method)
		case len(items) == 0 && errors.As(err, &ce):
			// The server answered the listing with an error of its own (a
			// database it cannot reach behind it): its resources are not
			// known, and the rest of its surface is.
			s.HasResources, s.ResourcesError = false, ce.Err.Error()
		case err != nil:
			return Server{}, err
		default:
			s.Resources = items
		}
	}
	return s, nil
}

// Identify fills in who the server l lists says it is, from its
// initialize result: the protocol version, serverInfo (and the name it
// gives) and instructions.
func (l *Lister) Identify(s *Server) {
	st := l.c.State()
	s.ProtocolVersion, s.HasIdentity = st.Version, true
	s.Info, s.Instructions = st.InitializeResult.ServerInfo, st.InitializeResult.Instructions
	s.Name = st.InitializeResult.ServerName()
}

// ServerOfSnapshot is the surface a snapshot holds: its lists, with no
// identity, instructions or resources.
func ServerOfSnapshot(snap Snapshot) Server { return Server{Snapshot: snap} }

// recordedServer is what ServerOfRecording reads of a responses file:
// who the server said it was, and the resources it listed.
type recordedServer struct {
	Server *struct {
		ServerInfo   json.RawMessage `json:"serverInfo"`
		Instructions *string         `json:"instructions"`
	} `json:"server"`
	Resources []struct {
		URI      string          `json:"uri"`
		Resource json.RawMessage `json:"resource"`
		Result   json.RawMessage `json:"result"`
	} `json:"resources"`
	Prompts []struct {
		Name   string          `json:"name"`
		Result json.RawMessage `json:"result"`
	} `json:"prompts"`
}

// ServerOfRecording is the surface of a recording of mcpv serve --record:
// the snapshot, with the identity, instructions and listed resources its
// responses file holds (responses, the file's bytes, JSON as --record
// writes it). Resources are known only when the file lists one.
func ServerOfRecording(snap Snapshot, responses []byte) (Server, error) {
	s := Server{Snapshot: snap}
	var r recordedServer
	if err := json.Unmarshal(responses, &r); err != nil {
		return Server{}, fmt.Errorf("not a responses file: %w", err)
	}
	if r.Server != nil {
		s.Info, s.Instructions = r.Server.ServerInfo, r.Server.Instructions
		s.Name, s.HasIdentity = s.InfoName(), true
	}
	for _, e := range r.Resources {
		if len(e.Resource) > 0 && string(e.Resource) != "null" {
			s.Resources = append(s.Resources, e.Resource)
			s.HasResources = true
		}
		s.Reads.Resources = keepFirst(s.Reads.Resources, e.URI, e.Result)
	}
	for _, e := range r.Prompts {
		s.Reads.Prompts = keepFirst(s.Reads.Prompts, e.Name, e.Result)
	}
	return s, nil
}

// keepFirst is m with result under key unless m holds one already: the
// first recorded, as the first entry that matches answers a mock's
// request. A result that is null or none is not kept.
func keepFirst(m map[string]json.RawMessage, key string, result json.RawMessage) map[string]json.RawMessage {
	if _, ok := m[key]; ok || key == "" || len(result) == 0 || string(result) == "null" {
		return m
	}
	lazy.Put(&m, key, result)
	return m
}
