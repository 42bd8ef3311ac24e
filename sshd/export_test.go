package sshd

import "time"

// SetKeepalive shortens the keepalive interval for tests.
func SetKeepalive(s *Server, d time.Duration) { s.keepaliveEvery = d }
