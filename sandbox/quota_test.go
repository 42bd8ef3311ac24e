package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseProcCPU(t *testing.T) {
	tail := " 0 0 20 0 1 0 4121754 3133440 380 18446744073709551615 0\n"
	for _, c := range []struct {
		name, stat string
		want       uint64
		bad        bool
	}{
		{name: "plain", stat: "7667 (cat) R 7125 7125 10478 0 -1 4194304 99 0 0 0 12 34" + tail, want: 46},
		{name: "name-with-spaces-and-parens", stat: "1 (a) b) (c) S 1 1 1 0 -1 0 0 0 0 0 5 6" + tail, want: 11},
		{name: "stime-last", stat: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 7 8", want: 15},
		{name: "short", stat: "1 (x) S 1 2", bad: true},
		{name: "no-name", stat: "1 x S 1 1 1 0 -1 0 0 0 0 0 5 6" + tail, bad: true},
		{name: "not-a-number", stat: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 5x 6" + tail, bad: true},
		{name: "too-long", stat: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 6" + tail, bad: true},
		{name: "empty", stat: "", bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseProcCPU([]byte(c.stat))
			if c.bad {
				if err == nil {
					t.Errorf("got %d; want an error", got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

// The parse of this process's own stat agrees with the fields counted by
// a plain split.
func TestParseProcCPUOwnStat(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	u, _ := strconv.ParseUint(f[11], 10, 64)
	s, _ := strconv.ParseUint(f[12], 10, 64)
	got, err := parseProcCPU(b)
	if err != nil || got != u+s {
		t.Errorf("got %d, %v; want %d", got, err, u+s)
	}
}

// A worker's disk watcher joins the host's one loop, and has left it (its
// descriptors closed) by the time Close returns: nothing of a worker is
// left once it was waited for.
func TestDiskWatcherLeavesWithItsWorker(t *testing.T) {
	needRoot(t)
	w, _ := startWorker(t, "", WorkerOptions{Disk: testDisk, Users: testUsers})
	watched := func() bool {
		hostDiskWatchers.mu.Lock()
		defer hostDiskWatchers.mu.Unlock()
		for _, slot := range hostDiskWatchers.slots {
			for _, d := range slot {
				if d.w == w {
					return true
				}
			}
		}
		return false
	}
	waitFor(t, "the watcher joins the loop", watched)
	hostDiskWatchers.mu.Lock()
	d := hostDiskWatchers.of[w]
	hostDiskWatchers.mu.Unlock()
	mustEval(t, w, `1`, false)
	w.Close()
	if watched() {
		t.Error("the watcher is still in the loop after Close")
	}
	if _, err := d.root.Stat("."); err == nil {
		t.Error("the watcher's root is still open after Close")
	}
	if _, err := d.stat.cpu(); err == nil {
		t.Error("the watcher's /proc stat is still open after Close")
	}
}

// waitFor polls cond until it holds, failing after a bound far above what
// a loaded machine needs.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within 30s", what)
		}
	}
}

// What the disk watcher pays per worker per second when the worker is
// idle: one pread of its /proc stat and the parse.
//
//	go test -run '^$' -bench ProcStatCPU -benchmem ./sandbox/
func BenchmarkProcStatCPU(b *testing.B) {
	stat, err := openStatFile(os.Getpid())
	if err != nil {
		b.Skip(err)
	}
	defer stat.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stat.cpu(); err != nil {
			b.Fatal(err)
		}
	}
}
