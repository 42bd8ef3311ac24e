package sandbox

import (
	"errors"
	"fmt"

	"github.com/replhost/replhost/internal/yaegix"
)

// EvalError is a compile or run-time error of a cell, at the user's line and
// column (zero when the interpreter gave none).
type EvalError struct {
	Line, Col int
	Msg       string
	compile   bool // found before anything ran
}

func (e *EvalError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

func errorAt(line, col int, msg string) *EvalError {
	return &EvalError{Line: line, Col: col, Msg: msg}
}

// ExitError reports that the cell called os.Exit: the cell ends, the session
// goes on; a script exits with Code.
//
// Process is true when the session's worker process itself exited with
// Code (compiled code such as testing.Main called os.Exit, or interpreted
// code did in a goroutine): the session's state went with it, and the
// caller restores it from its journal before the next cell.
type ExitError struct {
	Code    int
	Process bool
}

func (e *ExitError) Error() string {
	if e.Process {
		return fmt.Sprintf("os.Exit(%d) called: the session's process ended; its cells are restored before the next one", e.Code)
	}
	return fmt.Sprintf("os.Exit(%d) called: cell ended", e.Code)
}

// CrashError reports that the worker running the session's interpreter died;
// the session is restored from its journal.
//
// When the host ended the worker because it broke the protocol (a forged,
// malformed or unasked-for frame: the code in it may have reached the
// socket), Reason starts with "protocol error: " and errors.Is(err,
// ErrProtocol) holds. That says the worker misbehaved, not that the cell
// (or a replayed journal cell) failed: restore the session in a new
// worker, and never cut the journal for it.
type CrashError struct {
	Reason string
	// Status is the worker's exit status when it ended by itself, 0 when
	// it was killed: the Go runtime exits 2 after an unrecovered panic or
	// a fatal error, and a script exits with it, as the program would.
	Status int
	err    error // ErrProtocol's, or nil
}

func (e *CrashError) Error() string { return "session crashed: " + e.Reason }

// Unwrap returns the protocol error that ended the worker, or nil.
func (e *CrashError) Unwrap() error { return e.err }

// ErrClosed is returned by an evaluator used after Close.
var ErrClosed = errors.New("sandbox: evaluator closed")

// parsePosError turns the interpreter's "L:C: msg" into an EvalError, moving
// the line up by shift (the lines the evaluator added before the user's code).
func parsePosError(msg string, shift int) *EvalError {
	line, col, text, ok := yaegix.SplitPos(msg)
	if !ok {
		return &EvalError{Msg: msg}
	}
	if line-shift < 1 {
		return &EvalError{Msg: text}
	}
	return errorAt(line-shift, col, text)
}
