package sshd_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/procmem"
	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/internal/workerbuild"
)

// BenchmarkLoginToPromptProcess is BenchmarkLoginToPrompt with each session
// in its own worker process (from the warm pool). Logins come 100 ms apart
// (not timed), as users do, so that the pool has refilled; back to back they
// would measure process start instead.
func BenchmarkLoginToPromptProcess(b *testing.B) {
	benchLogin(b, testhost.Options{Repl: benchRepl(), Process: true}, 100*time.Millisecond)
}

// BenchmarkIdleSessionMemory opens 200 idle sessions with process
// isolation and reports the PSS per session: the host's growth plus the
// workers, from /proc/<pid>/smaps_rollup. The workers run the worker
// binary (cmd/replhost-worker, built like this test binary), as an
// installed host's do. Run with -benchtime 1x.
func BenchmarkIdleSessionMemory(b *testing.B) {
	const sessions = 200
	bin := workerbuild.Binary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := testhost.Start(b, testhost.Options{Repl: benchRepl(), Process: true, WorkerBinary: bin})
		host := os.Getpid()
		before := pss(b, host)
		c := h.Dial(b, "alice")
		for j := 0; j < sessions; j++ {
			if r := testhost.RunOn(b, c, "new", ""); r.Status != 0 {
				b.Fatalf("new: %+v", r)
			}
		}
		var workers int64
		n := 0
		for _, pid := range testhost.Children(host) {
			workers += pss(b, pid)
			n++
		}
		per := float64(pss(b, host)-before+workers) / sessions / (1 << 20)
		b.ReportMetric(per, "MiB/session")
		b.ReportMetric(float64(workers)/float64(n)/(1<<20), "MiB/worker")
		h.Stop()
	}
}

// BenchmarkRoundTripProcess is BenchmarkRoundTrip with the session in a
// worker process and the 20-character cell of cmd/replbench's round trip,
// reporting the CPU per cell of this process (the host, and the client
// beside it) and of the workers, from /proc (10 ms ticks: run ≥1000x).
func BenchmarkRoundTripProcess(b *testing.B) {
	h := testhost.Start(b, testhost.Options{Repl: benchRepl(), Process: true})
	term := h.Terminal(b, "alice", "")
	term.Expect("go> ")
	term.Send("x := 0\r")
	term.Expect("go> ")
	me := os.Getpid()
	host, workers, mem := cpuOf(me), childrenCPU(me), childrenPSS(b, me)
	m := &medianTimer{b: b}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.begin()
		term.Send("x+10000000+100000000\r")
		term.Expect(`\r\n110000000\r\n(?:.*)go> `)
		m.end()
	}
	b.StopTimer()
	m.report()
	b.ReportMetric(float64((cpuOf(me)-host).Microseconds())/1000/float64(b.N), "host-cpu-ms/op")
	b.ReportMetric(float64((childrenCPU(me)-workers).Microseconds())/1000/float64(b.N), "worker-cpu-ms/op")
	b.ReportMetric(float64(childrenPSS(b, me)-mem)/1024/float64(b.N), "worker-PSS-KB/op")
}

// BenchmarkLoadCellProcess is BenchmarkRoundTripProcess with the cell of
// cmd/replbench's load mode, `c++; c`: a statement and an expression of a
// session variable, which go through the typed front end.
func BenchmarkLoadCellProcess(b *testing.B) {
	h := testhost.Start(b, testhost.Options{Repl: benchRepl(), Process: true})
	term := h.Terminal(b, "alice", "")
	term.Expect("go> ")
	term.Send("c := 0\r")
	term.Expect("go> ")
	me := os.Getpid()
	host, workers, mem := cpuOf(me), childrenCPU(me), childrenPSS(b, me)
	m := &medianTimer{b: b}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.begin()
		term.Send("c++; c\r")
		term.Expect(`\r\n` + strconv.Itoa(i+1) + `\r\n(?:.*)go> `)
		m.end()
	}
	b.StopTimer()
	m.report()
	b.ReportMetric(float64((cpuOf(me)-host).Microseconds())/1000/float64(b.N), "host-cpu-ms/op")
	b.ReportMetric(float64((childrenCPU(me)-workers).Microseconds())/1000/float64(b.N), "worker-cpu-ms/op")
	b.ReportMetric(float64(childrenPSS(b, me)-mem)/1024/float64(b.N), "worker-PSS-KB/op")
}

// childrenPSS is the PSS of the live children of pid.
func childrenPSS(tb testing.TB, pid int) int64 {
	var n int64
	for _, c := range testhost.Children(pid) {
		n += pss(tb, c)
	}
	return n
}

// cpuOf is the user and system time of pid so far; 0 when it is gone.
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// childrenCPU is the CPU time of the live children of pid.
func childrenCPU(pid int) time.Duration {
	var d time.Duration
	for _, c := range testhost.Children(pid) {
		d += cpuOf(c)
	}
	return d
}

// pss is the proportional set size of pid in bytes.
func pss(tb testing.TB, pid int) int64 {
	tb.Helper()
	r, err := procmem.Of(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return r.PSS
}
