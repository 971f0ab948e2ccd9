package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/safetext"
)

// Logs counts the log messages (notifications/message) the run's servers
// send, by level, and keeps the first few: a server that logs every call
// would otherwise bury the report under hundreds of thousands of lines.
// Note is called from every session's dispatcher at once.
type Logs struct {
	mu       sync.Mutex // guards every field below
	count    int64
	dropped  int64 // log messages a session's full queue dropped before they were counted by level
	levels   map[string]int64
	examples []logNote
}

// logNote is a message kept as the server sent it, cut to maxLogKept
// bytes: it is masked before it is clipped for the report (summary), so
// that a clip inside a secret leaves no part of it.
type logNote struct {
	level, logger, message string
	cut                    int // bytes of the message not kept
}

// LogExample is one log message as the server sent it, made safe for a
// terminal and clipped.
type LogExample struct {
	Level   string `json:"level"`
	Logger  string `json:"logger,omitempty"`
	Message string `json:"message"`
}

// LogSummary is what the report says of the servers' log messages.
type LogSummary struct {
	Count int64 `json:"count"`
	// Dropped of them came faster than mcpv could look at them, and are
	// counted in no level.
	Dropped  int64            `json:"dropped,omitempty"`
	Levels   map[string]int64 `json:"levels"`
	Examples []LogExample     `json:"examples"`
}

// The bounds of what Logs keeps, whatever the servers send.
const (
	maxLogLevels   = 16  // levels told apart; the rest are "other"
	maxLogExamples = 3   // messages kept as they came
	maxLogText     = 200 // bytes of a message shown
	maxLogLevel    = 32  // bytes of a level shown
	maxLogLogger   = 64  // bytes of a logger's name shown
	// maxLogKept bytes of each are kept until the report masks them:
	// more than a secret may take past the point where they are clipped.
	maxLogKept = 4096
)

// Note counts one notifications/message's params.
func (l *Logs) Note(params json.RawMessage) {
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	level := "malformed" // params that do not decode, counted as such
	if json.Unmarshal(params, &p) == nil {
		level = cmp.Or(kept(p.Level), "none")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.levels == nil {
		l.levels = map[string]int64{}
	}
	l.count++
	if _, ok := l.levels[level]; !ok && len(l.levels) >= maxLogLevels {
		level = "other"
	}
	l.levels[level]++
	if len(l.examples) < maxLogExamples {
		var msg string
		if json.Unmarshal(p.Data, &msg) != nil {
			msg = string(p.Data)
		}
		m := kept(msg)
		l.examples = append(l.examples, logNote{level: level, logger: kept(p.Logger), message: m, cut: len(msg) - len(m)})
	}
}

// kept is s cut to maxLogKept bytes, to be masked and clipped later.
func kept(s string) string {
	head, _ := safetext.Cut(s, maxLogKept)
	return head
}

// shown is what the report shows of text a server sent: masked first,
// then clipped to n bytes and made safe for a terminal; cut more bytes
// were left out before (kept).
func shown(text string, cut, n int, mask func(string) string) string {
	if mask != nil {
		text = mask(text)
	}
	head, _ := safetext.Cut(text, n)
	if left := len(text) - len(head) + cut; left > 0 {
		head += fmt.Sprintf("… (%d more bytes)", left)
	}
	return safetext.Line(head)
}

// Dropped counts the log messages a session dropped from its full queue
// (connect.Hooks.OnDropped): they count, though not by level.
func (l *Logs) Dropped(logs, other int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count += int64(logs)
	l.dropped += int64(logs)
}

// summary is what was counted, messages masked; nil when none came.
func (l *Logs) summary(mask func(string) string) *LogSummary {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == 0 {
		return nil
	}
	s := &LogSummary{Count: l.count, Dropped: l.dropped, Levels: map[string]int64{}}
	for k, v := range l.levels {
		s.Levels[shown(k, 0, maxLogLevel, mask)] += v // two may look alike once clipped
	}
	for _, e := range l.examples {
		s.Examples = append(s.Examples, LogExample{Level: shown(e.level, 0, maxLogLevel, mask),
			Logger: shown(e.logger, 0, maxLogLogger, mask), Message: shown(e.message, e.cut, maxLogText, mask)})
	}
	return s
}

// byCount is the levels, most first.
func (s *LogSummary) byCount() []string {
	return slices.SortedFunc(maps.Keys(s.Levels), func(a, b string) int {
		return cmp.Or(cmp.Compare(s.Levels[b], s.Levels[a]), cmp.Compare(a, b))
	})
}
