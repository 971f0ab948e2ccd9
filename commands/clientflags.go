package commands

import (
	"fmt"
	"strings"
	"time"
)

// clientFlags decide how mcpv answers what the server asks and shows what it reports.
type clientFlags struct {
	MaxTimeout  time.Duration `name:"max-timeout" default:"1h" help:"Progress notifications restart --timeout, but a request never runs longer than this; 0 means no cap." group:"Server requests"`
	Events      string        `name:"events" placeholder:"FILE" help:"Write every notification from the server to FILE as NDJSON, with a timestamp." group:"Server requests"`
	LogLevel    string        `name:"log-level" enum:",debug,info,notice,warning,error,critical,alert,emergency" default:"" placeholder:"LEVEL" help:"Ask the server to send log messages at LEVEL and above (logging/setLevel)." group:"Server requests"`
	Root        []string      `name:"root" sep:"none" placeholder:"DIR" help:"Offer this directory as a root (repeatable); without --root mcpv declares no roots." group:"Server requests"`
	SamplingCmd string        `name:"sampling-cmd" placeholder:"CMD" help:"Answer sampling/createMessage by running CMD (sh -c) with the request's params as JSON on stdin; it prints a CreateMessageResult." group:"Server requests"`
	Answer      []string      `name:"answer" sep:"none" placeholder:"KEY=VALUE" help:"Answer a field of an elicitation form (repeatable), typed by the requested schema." group:"Server requests"`
	Answers     string        `name:"answers" placeholder:"FILE" type:"existingfile" help:"Answer elicitation forms from a JSON object in FILE." group:"Server requests"`
	Elicitation string        `name:"elicitation" enum:",prompt,accept,decline,cancel" default:"" placeholder:"POLICY" help:"What to do with an elicitation that the answers do not complete: prompt (the default on a terminal), accept (fill defaults), decline (the default otherwise) or cancel." group:"Server requests"`
}

func (f *clientFlags) Validate() error {
	for _, a := range f.Answer {
		if k, _, ok := strings.Cut(a, "="); !ok || k == "" {
			return fmt.Errorf("--answer %q: want KEY=VALUE", a)
		}
	}
	if f.MaxTimeout < 0 {
		return fmt.Errorf("--max-timeout cannot be negative")
	}
	return nil
}
