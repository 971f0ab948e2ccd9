package elicit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// errQuit is the user typing q.
var errQuit = errors.New("q typed")

// promptForm asks on the terminal for each field without a value, then for
// confirmation. vals holds what the answers and defaults already gave.
func (o *Options) promptForm(ctx context.Context, f *form, vals values) (json.RawMessage, error) {
	release, err := o.TTY.Turn(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	t := o.TTY
	for _, fl := range f.fields {
		if _, ok := vals[fl.name]; ok {
			continue
		}
		if err := o.askField(ctx, fl, vals); err != nil {
			return o.stopped(ctx, err)
		}
	}
	for {
		fmt.Fprintf(t, "Answer: %s\nSend? [Y/n/decline] ", safetext.Prose(string(content(f, vals))))
		line, err := t.ReadLine(ctx)
		if err != nil {
			return o.stopped(ctx, err)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
			return o.accept(f, vals), nil
		case "n", "no":
			fmt.Fprintln(t, "Edit the answers (Enter keeps the value in brackets, q cancels):")
			for _, fl := range f.fields {
				if err := o.askField(ctx, fl, vals); err != nil {
					return o.stopped(ctx, err)
				}
			}
		case "d", "decline":
			return o.answered(actDecline, "declined at the terminal"), nil
		case "q", "c", "cancel":
			return o.answered(actCancel, "cancelled at the terminal"), nil
		default:
			fmt.Fprintln(t, "  answer y (send), n (edit the answers), decline, or q (cancel)")
		}
	}
}

// stopped turns a failed read into the answer: cancel for q, end of input or a
// broken terminal; nothing (ctx's error) when ctx ended.
func (o *Options) stopped(ctx context.Context, err error) (json.RawMessage, error) {
	switch {
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintln(o.TTY)
		o.notef("no answer sent: %v", err)
		return nil, err
	case errors.Is(err, errQuit):
		return o.answered(actCancel, "cancelled at the terminal"), nil
	case errors.Is(err, io.EOF):
		fmt.Fprintln(o.TTY)
		return o.answered(actCancel, "end of input on the terminal"), nil
	}
	o.warnf("reading the terminal: %v", err)
	return o.answered(actCancel, "cannot read the terminal"), nil
}

// askField asks for one field until it gets a valid answer and stores it in
// vals. Enter takes the value shown in brackets (the current value, else the
// default); with none, it leaves an optional field empty and asks again for a
// required one.
func (o *Options) askField(ctx context.Context, fl *field, vals values) error {
	t := o.TTY
	keep, has := vals[fl.name]
	if !has {
		if d := fl.coerceDefault(); d != nil && fl.check(d) == "" { // a default that satisfies fl's schema
			keep = value{d, fromDefault}
		}
	}
	if h := fl.heading(); h != "" {
		fmt.Fprintln(t, h)
	}
	for i, c := range fl.choices {
		if c.Title != "" && c.Title != c.Value {
			fmt.Fprintf(t, "  %d) %s (%s)\n", i+1, safetext.Prose(c.Title), safetext.Prose(c.Value))
		} else {
			fmt.Fprintf(t, "  %d) %s\n", i+1, safetext.Prose(c.Value))
		}
	}
	prompt := fmt.Sprintf("%s (%s)", safetext.Prose(fl.name), fl.hints())
	if keep.v != nil {
		prompt += fmt.Sprintf(" [%s]", safetext.Prose(display(keep.v)))
	}
	prompt += ": "
	for {
		fmt.Fprint(t, prompt)
		line, err := t.ReadLine(ctx)
		if err != nil {
			return err
		}
		switch strings.TrimSpace(line) {
		case "q":
			return errQuit
		case "":
			switch {
			case keep.v != nil:
				vals[fl.name] = keep
				return nil
			case fl.required:
				fmt.Fprintln(t, "  a value is required (q cancels)")
				continue
			}
			delete(vals, fl.name)
			return nil
		}
		v, err := fl.fromInput(line)
		if err == nil {
			if rule := fl.check(v); rule != "" {
				err = errors.New(rule)
			}
		}
		if err != nil {
			fmt.Fprintf(t, "  invalid: %s %s\n", safetext.Prose(fl.name), err)
			continue
		}
		vals[fl.name] = value{v, fromUser}
		return nil
	}
}

// heading is the title and description of a field, on one line.
func (fl *field) heading() string {
	t, d := safetext.Prose(fl.title), safetext.Prose(fl.description)
	switch {
	case t != "" && d != "":
		return t + ": " + d
	case t != "":
		return t
	}
	return d
}

// hints describes what a field takes: "integer, 0 to 120, required".
func (fl *field) hints() string {
	var h []string
	switch fl.kind {
	case kindNumber:
		h = append(h, "number")
	case kindInteger:
		h = append(h, "integer")
	case kindBoolean:
		h = append(h, "y/n")
	case kindEnum:
		h = append(h, fmt.Sprintf("choose 1-%d", len(fl.choices)))
	case kindMulti:
		h = append(h, fmt.Sprintf("choose from 1-%d, comma-separated", len(fl.choices)))
	default:
		h = append(h, cmp.Or(map[string]string{"email": "email", "uri": "URI", "date": "YYYY-MM-DD",
			"date-time": "RFC 3339 date-time"}[fl.format], "text"))
	}
	if r := rangeHint(fl.minLength, fl.maxLength, " characters"); r != "" {
		h = append(h, r)
	}
	if r := rangeHint(fl.minItems, fl.maxItems, " choices"); r != "" {
		h = append(h, r)
	}
	switch {
	case fl.minimum != "" && fl.maximum != "":
		h = append(h, fl.minimum+" to "+fl.maximum)
	case fl.minimum != "":
		h = append(h, "at least "+fl.minimum)
	case fl.maximum != "":
		h = append(h, "at most "+fl.maximum)
	}
	if fl.pattern != "" {
		h = append(h, "pattern "+safetext.Prose(fl.pattern))
	}
	if fl.required {
		h = append(h, "required")
	}
	return strings.Join(h, ", ")
}

func rangeHint(min, max int, unit string) string {
	switch {
	case min >= 0 && max >= 0:
		return fmt.Sprintf("%d to %d%s", min, max, unit)
	case min >= 0:
		return fmt.Sprintf("at least %d%s", min, unit)
	case max >= 0:
		return fmt.Sprintf("at most %d%s", max, unit)
	}
	return ""
}
