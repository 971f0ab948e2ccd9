package jsonschema

import (
	"errors"
	"fmt"
	"strings"
)

// formatDate is RFC 3339's full-date: YYYY-MM-DD, a day the month has.
func formatDate(s string) error {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return errors.New("want YYYY-MM-DD")
	}
	y, ok1 := digitsValue(s[:4])
	m, ok2 := digitsValue(s[5:7])
	d, ok3 := digitsValue(s[8:])
	if !ok1 || !ok2 || !ok3 {
		return errors.New("want YYYY-MM-DD")
	}
	if m < 1 || m > 12 {
		return errors.New("month out of range")
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	if d < 1 || d > days {
		return errors.New("day out of range")
	}
	return nil
}

// formatTime is RFC 3339's full-time: hh:mm:ss[.frac] and Z or an offset;
// a leap second only at 23:59 UTC.
func formatTime(s string) error {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return errors.New("want hh:mm:ss and a zone")
	}
	h, ok1 := digitsValue(s[:2])
	m, ok2 := digitsValue(s[3:5])
	sec, ok3 := digitsValue(s[6:8])
	if !ok1 || !ok2 || !ok3 {
		return errors.New("want hh:mm:ss and a zone")
	}
	if h > 23 || m > 59 || sec > 60 {
		return errors.New("hour, minute or second out of range")
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		i := len(frac) - len(strings.TrimLeft(frac, "0123456789"))
		if i == 0 {
			return errors.New("no digits after the decimal point")
		}
		rest = frac[i:]
	}
	if rest != "Z" && rest != "z" {
		if len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
			return errors.New("want Z or an offset ±hh:mm")
		}
		oh, ok1 := digitsValue(rest[1:3])
		om, ok2 := digitsValue(rest[4:])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return errors.New("offset out of range")
		}
		// The leap second is at 23:59:60 UTC: take the offset away.
		minutes := h*60 + m
		if rest[0] == '+' {
			minutes -= oh*60 + om
		} else {
			minutes += oh*60 + om
		}
		minutes = (minutes%1440 + 1440) % 1440
		h, m = minutes/60, minutes%60
	}
	if sec == 60 && (h != 23 || m != 59) {
		return errors.New("a leap second other than at 23:59:60 UTC")
	}
	return nil
}

// formatDateTime is RFC 3339's date-time.
func formatDateTime(s string) error {
	if len(s) < 20 || (s[10] != 'T' && s[10] != 't') {
		return errors.New("want a date, T and a time")
	}
	if err := formatDate(s[:10]); err != nil {
		return fmt.Errorf("date: %v", err)
	}
	if err := formatTime(s[11:]); err != nil {
		return fmt.Errorf("time: %v", err)
	}
	return nil
}

// formatDuration is an ISO 8601 duration as RFC 3339 appendix A writes
// it: P, then weeks alone, or dates and T and times, units in order.
func formatDuration(s string) error {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok || rest == "" {
		return errors.New("want P and at least one element")
	}
	if w, ok := strings.CutSuffix(rest, "W"); ok {
		if _, ok := digitsValue(w); !ok {
			return errors.New("want a number of weeks")
		}
		return nil
	}
	datePart, timePart, hasT := strings.Cut(rest, "T")
	if hasT && timePart == "" {
		return errors.New("no time elements after T")
	}
	if strings.Contains(timePart, "T") {
		return errors.New("more than one T")
	}
	elements := func(part, units string) error {
		for part != "" {
			i := len(part) - len(strings.TrimLeft(part, "0123456789"))
			if i == 0 {
				return errors.New("an element without a number")
			}
			if i == len(part) {
				return errors.New("a number without a unit")
			}
			j := strings.IndexByte(units, part[i])
			if j < 0 {
				return fmt.Errorf("unit %q unknown or out of order", part[i])
			}
			units = units[j+1:]
			part = part[i+1:]
		}
		return nil
	}
	if err := elements(datePart, "YMD"); err != nil {
		return err
	}
	return elements(timePart, "HMS")
}

// formatPeriod is an ISO 8601 period: start/end, start/duration or
// duration/end.
func formatPeriod(s string) error {
	start, end, ok := strings.Cut(s, "/")
	if !ok {
		return errors.New("want start/end")
	}
	startCheck, endCheck := formatDateTime, formatDateTime
	if strings.HasPrefix(start, "P") {
		startCheck = formatDuration
	} else if strings.HasPrefix(end, "P") {
		endCheck = formatDuration
	}
	if err := startCheck(start); err != nil {
		return fmt.Errorf("start: %v", err)
	}
	if err := endCheck(end); err != nil {
		return fmt.Errorf("end: %v", err)
	}
	return nil
}
