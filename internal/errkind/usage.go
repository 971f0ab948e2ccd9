// Package errkind holds the kinds of error mcpv tells apart: the command
// line's (usage.go: the mistakes a user makes before any server starts,
// exit 2, which every part of mcpv that reads what the user wrote may
// return) and the system's (system.go: a broken pipe, a refused
// connection, an address taken or missing, on every OS). It imports
// nothing of mcpv, so that a package which only needs to say "this is a
// usage mistake" does not pull in the session opener, OAuth and the keeper
// with it.
package errkind

import "fmt"

// UsageError is a mistake on the command line, found before any server
// starts (exit 2).
type UsageError struct {
	Err error
	// Pointed, when set, means the message already says where to look
	// (for example 'see mcpv list-tools T'), so no general pointer to
	// --help is added.
	Pointed bool
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage wraps err as a *UsageError.
func Usage(err error) error { return &UsageError{Err: err} }

// Usagef is a *UsageError with a formatted message.
func Usagef(format string, args ...any) error { return &UsageError{Err: fmt.Errorf(format, args...)} }

// ConfigError is a problem with a config file, or a refusal to use one
// (exit 2, like a usage error, but its message says all there is to say).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Configf is a *ConfigError with a formatted message.
func Configf(format string, args ...any) error { return &ConfigError{Err: fmt.Errorf(format, args...)} }
