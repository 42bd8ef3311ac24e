package repl

import "time"

// SetOutputLinger sets outputLinger for a test; the returned func restores it.
func SetOutputLinger(d time.Duration) (restore func()) {
	old := outputLinger
	outputLinger = d
	return func() { outputLinger = old }
}
