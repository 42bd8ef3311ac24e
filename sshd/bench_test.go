package sshd_test

import (
	"sort"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
)

// medianTimer records each iteration's duration and reports the median, the
// figure the README gives (the mean of ns/op hides a slow tail or a fast one).
type medianTimer struct {
	b     *testing.B
	start time.Time
	ds    []time.Duration
}

func (m *medianTimer) begin() { m.start = time.Now() }
func (m *medianTimer) end()   { m.ds = append(m.ds, time.Since(m.start)) }

func (m *medianTimer) report() {
	if len(m.ds) == 0 {
		return
	}
	sort.Slice(m.ds, func(i, j int) bool { return m.ds[i] < m.ds[j] })
	m.b.ReportMetric(float64(m.ds[len(m.ds)/2].Microseconds())/1000, "median-ms")
	m.b.ReportMetric(float64(m.ds[len(m.ds)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkLoginToPrompt: TCP connect, key exchange, public-key auth, PTY,
// shell, new session with its interpreter, until "go> " shows.
func BenchmarkLoginToPrompt(b *testing.B) {
	benchLogin(b, testhost.Options{Repl: benchRepl()}, 0)
}

// benchLogin times logins to the first prompt, pause apart (not timed).
func benchLogin(b *testing.B, opts testhost.Options, pause time.Duration) {
	h := testhost.Start(b, opts)
	m := &medianTimer{b: b}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.begin()
		term := h.Terminal(b, "alice", "")
		term.Expect("go> ")
		m.end()
		b.StopTimer()
		term.Send(":quit\r")
		term.Wait()
		term.Close()
		time.Sleep(pause)
		b.StartTimer()
	}
	m.report()
}

// BenchmarkRoundTrip: "1+2" typed at the prompt of an open session until
// its value and the next prompt show.
func BenchmarkRoundTrip(b *testing.B) {
	h := testhost.Start(b, testhost.Options{Repl: benchRepl()})
	term := h.Terminal(b, "alice", "")
	term.Expect("go> ")
	m := &medianTimer{b: b}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.begin()
		term.Send("1+2\r")
		term.Expect(`\r\n3\r\n(?:.*)go> `)
		m.end()
	}
	m.report()
}

// BenchmarkOneShotEval: a new connection running `eval 1+2` to its printed
// result, what OpenSSH with the yaegi CLI as ForceCommand does in ~260 ms.
func BenchmarkOneShotEval(b *testing.B) {
	h := testhost.Start(b, testhost.Options{Repl: benchRepl()})
	m := &medianTimer{b: b}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.begin()
		r := h.Run(b, "alice", "eval 1+2", "")
		m.end()
		if r.Stdout != "3\n" {
			b.Fatalf("eval: %+v", r)
		}
	}
	m.report()
}
