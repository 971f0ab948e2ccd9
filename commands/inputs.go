package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/safetext"
)

// inputAsker asks for a config file's ${input:ID} on the terminal (unseen
// for a password), once per file and input in a run, and keeps the answer
// in memory only.
// ask is asker's Ask.
func inputAsker(ctx context.Context, ask func(ctx context.Context, question string, hidden bool) (string, error)) func(*config.Server, config.Input) (string, error) {
	var mu sync.Mutex // guards answers
	answers := map[[2]string]string{}
	return func(s *config.Server, in config.Input) (string, error) {
		key := [2]string{s.File.Path, in.ID}
		mu.Lock()
		defer mu.Unlock()
		if v, ok := answers[key]; ok {
			return v, nil
		}
		v, err := ask(ctx, inputQuestion(s, in), in.Password)
		switch {
		case errors.Is(err, errNoTerminal):
			return "", config.ErrNoTerminal
		case ctx.Err() != nil:
			return "", context.Cause(ctx)
		case err != nil:
			return "", err
		}
		answers[key] = v
		return v, nil
	}
}

// inputQuestion is how the terminal asks for an input: its description,
// the variable and the server it is for, its options and its default.
func inputQuestion(s *config.Server, in config.Input) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (${input:%s} for server %q", safetext.Line(in.Label()), safetext.Line(in.ID), s.Name)
	if len(in.Options) > 0 {
		b.WriteString("; one of: " + safetext.Line(strings.Join(in.Options, ", ")))
	}
	if in.Default != "" && !in.Password {
		b.WriteString("; default " + safetext.Line(in.Default))
	}
	b.WriteString("): ")
	return b.String()
}
