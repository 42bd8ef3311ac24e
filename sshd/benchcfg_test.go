package sshd_test

import (
	"time"

	"github.com/replhost/replhost/repl"
)

// benchRepl lets benchmarks open many sessions.
func benchRepl() repl.Config {
	return repl.Config{MaxSessionsPerUser: 1 << 20, SessionTTL: time.Hour}
}
