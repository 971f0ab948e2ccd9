package output

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// JSONLines is w for a run whose stderr is read by a program (--errors
// json): each line written to it reaches w as one JSON object. A line
// that is one already (the failure's) passes as it is; mcpv's other
// lines, "mcpv: TEXT" and "mcpv: warning: TEXT", become {"note":TEXT} and
// {"warning":TEXT}. It is safe for concurrent use; a line is written when
// its newline is.
func JSONLines(w io.Writer) io.Writer { return &jsonLines{w: w} }

type jsonLines struct {
	mu      sync.Mutex // guards partial, and orders the lines
	w       io.Writer
	partial []byte // a line begun and not yet ended
}

func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			j.partial = append(j.partial, p...)
			break
		}
		line := append(j.partial, p[:i]...)
		j.partial, p = nil, p[i+1:]
		if out := asJSONLine(line); out != nil {
			if _, err := j.w.Write(out); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// asJSONLine is line as one JSON object and a newline; nil for a blank
// line.
func asJSONLine(line []byte) []byte {
	text := bytes.TrimRight(line, "\r")
	if t := bytes.TrimSpace(text); len(t) == 0 {
		return nil
	} else if t[0] == '{' && json.Valid(t) {
		return append(t, '\n')
	}
	key := "note"
	text = bytes.TrimPrefix(text, []byte("mcpv: "))
	if rest, ok := bytes.CutPrefix(text, []byte("warning: ")); ok {
		key, text = "warning", rest
	}
	b, _ := json.Marshal(map[string]string{key: string(text)}) // invalid UTF-8 becomes U+FFFD
	return append(b, '\n')
}
