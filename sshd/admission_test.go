package sshd

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestParseMaxStartups(t *testing.T) {
	tests := []struct {
		in   string
		want MaxStartups
		err  bool
	}{
		{"10:30:100", MaxStartups{10, 30, 100}, false},
		{"20", MaxStartups{20, 100, 20}, false},
		{"10:30", MaxStartups{}, true},
		{"10:130:100", MaxStartups{}, true},
		{"50:30:10", MaxStartups{}, true},
		{"0:30:10", MaxStartups{}, true},
		{"x", MaxStartups{}, true},
	}
	for _, tt := range tests {
		got, err := ParseMaxStartups(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseMaxStartups(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// Random early drop as sshd computes it: rate% at start, rising linearly to
// 100% at full. roll is fixed, so the threshold is exact.
func TestRandomEarlyDrop(t *testing.T) {
	tests := []struct {
		name        string
		held, roll  int
		wantAdmit   bool
		wantRefused string
	}{
		{"below-start", 9, 0, true, ""},
		{"at-start-under-rate", 10, 29, false, "random early drop"},
		{"at-start-over-rate", 10, 30, true, ""},
		{"half-way", 55, 64, false, "random early drop"}, // 30 + 70*45/90 = 65
		{"half-way-over", 55, 65, true, ""},
		{"full", 100, 99, false, "max-startups: 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAdmission(DefaultMaxStartups, -1, Penalties{})
			a.roll = func() int { return tt.roll }
			a.total = tt.held
			ok, why := a.admit(netip.MustParseAddr("192.0.2.1"))
			if ok != tt.wantAdmit {
				t.Errorf("admit with %d held, roll %d = %v (%s); want %v", tt.held, tt.roll, ok, why, tt.wantAdmit)
			}
			if !ok && !strings.Contains(why, tt.wantRefused) {
				t.Errorf("reason %q; want %q", why, tt.wantRefused)
			}
		})
	}
}

// Penalties accrue per source, become active at Min, run out, and never
// pass Max; exempt sources earn none.
func TestPenaltiesAccrue(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newAdmission(DefaultMaxStartups, -1, Penalties{AuthFail: 5 * time.Second, Min: 15 * time.Second, Max: 20 * time.Second,
		Exempt: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	a.now = func() time.Time { return now }
	bad, other, exempt := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("10.1.1.1")
	for i := 0; i < 2; i++ {
		a.penalise(bad, 5*time.Second)
		if ok, _ := a.admit(bad); !ok {
			t.Fatalf("refused after %d failures, below Min", i+1)
		}
		a.leave(bad)
	}
	a.penalise(bad, 5*time.Second)
	if ok, _ := a.admit(bad); ok {
		t.Fatal("admitted after accruing Min")
	}
	if ok, _ := a.admit(other); !ok {
		t.Fatal("another source refused")
	}
	for range 10 {
		a.penalise(bad, 5*time.Second)
		a.penalise(exempt, time.Hour)
	}
	now = now.Add(21 * time.Second) // past Max
	if ok, _ := a.admit(bad); !ok {
		t.Error("still refused past Max")
	}
	if ok, _ := a.admit(exempt); !ok {
		t.Error("an exempt source was penalised")
	}
}
