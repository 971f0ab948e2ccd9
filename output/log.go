package output

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/safetext"
)

// NewLogger returns the logger mcpv's libraries report through: one line
// per record on w, "mcpv: warning: MESSAGE" for warnings and errors, "mcpv:
// MESSAGE" for notices; attributes follow as key=value. Debug records are
// dropped. It is safe for concurrent use.
func NewLogger(w io.Writer) *slog.Logger {
	return slog.New(&lineHandler{w: w, mu: new(sync.Mutex)})
}

type lineHandler struct {
	w     io.Writer
	mu    *sync.Mutex // guards w's writes; shared by derived handlers
	attrs []slog.Attr
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

// WithGroup is ignored: records are one line of text.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("mcpv: ")
	if r.Level >= slog.LevelWarn {
		b.WriteString("warning: ")
	}
	b.WriteString(safetext.Line(strings.TrimRight(r.Message, "\n"))) // whatever it quotes, one line a terminal cannot be steered by
	add := func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}
