package sshd_test

import (
	"testing"

	"github.com/replhost/replhost/internal/testhost"
)

// BenchmarkLoginBesideAStalledFlood is alice's login and one eval from
// 127.0.0.1 while 200 connections from 127.0.0.2 stall in their handshake
// (the "in within a second" of the front door, measured, not asserted).
func BenchmarkLoginBesideAStalledFlood(b *testing.B) {
	h := testhost.Start(b, testhost.Options{})
	for range 200 {
		admitted(b, dialFrom(b, "127.0.0.2", h.Addr))
	}
	m := medianTimer{b: b}
	b.ResetTimer()
	for range b.N {
		m.begin()
		c, err := sshFrom(b, h, "127.0.0.1", h.ClientConfig("alice"))
		if err != nil {
			b.Fatal(err)
		}
		if r := testhost.RunOn(b, c, "eval 1", ""); r.Stdout != "1\n" {
			b.Fatalf("eval: %+v", r)
		}
		c.Close()
		m.end()
	}
	m.report()
}
