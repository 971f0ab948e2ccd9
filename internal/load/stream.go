package load

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/mcp"
)

// streamed are a call's params for iteration k of session i when its row
// is large and its templates read it by paths alone (streamedInput), with
// the string they stream; ok is false when the row is to be read whole
// (Row), and when the call cannot send a string it has not read: a
// template whose key nests, or names a secret (whose value is masked as
// it was sent), or an x-mcp-header (whose value is sent in a header).
func (r *run) streamed(op *Op, k int64, i int) (params json.RawMessage, st *mcp.Streamed, ok bool, err error) {
	if op.kind != "call" || !op.flat || bytes.Contains(op.tool.InputSchema, []byte("x-mcp-header")) {
		return nil, nil, false, nil
	}
	in, st, err := r.streamedInput(op, k, i)
	if st == nil || err != nil {
		return nil, nil, false, err
	}
	for _, t := range op.tmpls {
		if redact.ArgName(t.Key) && t.Path() != nil {
			return nil, nil, false, nil
		}
	}
	params, err = op.Params(r.ctx, in)
	return params, st, err == nil, err
}

// streamedInput is what iteration k of session i's templates see when its
// row is large and they read it by paths alone: a row of the values they
// read, each read from the file where it is, the long string (st) not
// read at all but a marker that stands for it. st is nil when the row is
// to be read whole: a template that reads it otherwise, a value a path
// does not find plainly, or two long strings.
func (r *run) streamedInput(op *Op, k int64, i int) (in any, st *mcp.Streamed, err error) {
	data := r.cfg.Data
	if data == nil || !data.Large(k) {
		return nil, nil, nil
	}
	row := map[string]any{}
	for _, t := range op.tmpls {
		if t.RowFree() {
			continue
		}
		if t.Path() == nil {
			return nil, nil, nil
		}
		f, ok, err := data.Lookup(k, t.Path())
		if err != nil {
			return nil, nil, fmt.Errorf("%s, row %d: %w", data.Path, data.Index(k)+1, err)
		}
		if !ok {
			return nil, nil, nil
		}
		v := f.Value
		if f.Streamed {
			if st != nil {
				return nil, nil, nil
			}
			var id [16]byte
			rand.Read(id[:])
			marker := "mcpv-streamed-" + hex.EncodeToString(id[:])
			st = &mcp.Streamed{Marker: []byte(`"` + marker + `"`), File: data.File(), Off: f.Off, N: f.N, Name: data.Path, Mask: r.cfg.Mask}
			v = marker
		}
		if !setPath(row, t.Path(), v) {
			return nil, nil, nil
		}
	}
	if st == nil {
		return nil, nil, nil
	}
	return loaddata.Input{Iteration: k, Session: i, Row: row, Random: loaddata.Uniform(r.cfg.Seed, k)}.Value(), st, nil
}

// setPath sets row's value at path, making the objects on the way; false
// when two paths disagree (one reads into what the other sets).
func setPath(row map[string]any, path []string, v any) bool {
	for _, key := range path[:len(path)-1] {
		next, ok := row[key].(map[string]any)
		if !ok {
			if _, taken := row[key]; taken {
				return false
			}
			next = map[string]any{}
			row[key] = next
		}
		row = next
	}
	_, taken := row[path[len(path)-1]]
	row[path[len(path)-1]] = v
	return !taken
}
