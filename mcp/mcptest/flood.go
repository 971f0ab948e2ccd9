package mcptest

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// floodLogs sends log-flood's notifications before the answer to m: N log
// messages, "log 0" to "log N-1", and after every tenth a progress
// notification for m's progress token, if it has one (progress 1, 2, ...).
// They go out through one buffer (a frame each with content-length), as
// fast as the client reads.
func (s *server) floodLogs(m msg) {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	rawjson.DecodeLoose(m.Params, &p)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	buf := bufio.NewWriterSize(s.out, 64<<10)
	var w io.Writer = buf
	if s.c.framed != "" {
		w = s.out // a frame per write
	}
	var line []byte
	for i := range s.c.logFlood {
		line = append(line[:0], `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"flood","data":"log `...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, "\"}}\n"...)
		w.Write(line)
		if p.Meta.ProgressToken != nil && i%10 == 9 {
			line = append(line[:0], `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`...)
			line = append(line, p.Meta.ProgressToken...)
			line = append(line, `,"progress":`...)
			line = strconv.AppendInt(line, int64(i/10+1), 10)
			line = append(line, "}}\n"...)
			w.Write(line)
		}
	}
	buf.Flush()
}
