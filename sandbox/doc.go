// Package sandbox runs a session's Go cells: the yaegi interpreter with its
// package allowlist (in-process), and the worker process that hosts it.
//
// It knows no SSH and no readline: it takes source text and returns the text
// to show, writing the code's own output to the writers it was given.
package sandbox
