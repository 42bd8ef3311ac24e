package repl

import "time"

// SetOutputLinger sets outputLinger for a test; the returned func restores it.
func SetOutputLinger(d time.Duration) (restore func()) {
	old := outputLinger
	outputLinger = d
	return func() { outputLinger = old }
}

// SetEchoLinger sets echoLinger for a test; the returned func restores it.
func SetEchoLinger(d time.Duration) (restore func()) {
	old := echoLinger
	echoLinger = d
	return func() { echoLinger = old }
}
