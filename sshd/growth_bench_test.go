package sshd_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
)

// BenchmarkCellGrowthProcess is cmd/replbench's front-end row in one
// process-isolated session: b.N cells `vN := []int{N}`, each kept by the
// session. It reports what a cell leaves behind: in the host (this
// process, the client beside it keeping nothing per cell) the live heap
// after a collection and what a cell allocates, and the worker's PSS
// right after the cells and once it idled past its release (2 s). Run
// with -benchtime 1000x.
func BenchmarkCellGrowthProcess(b *testing.B) {
	h := testhost.Start(b, testhost.Options{Repl: benchRepl(), Process: true})
	term := h.Terminal(b, "alice", "")
	term.Expect("go> ")
	term.Send("1+2\r")
	term.Expect(`\r\n3\r\n(?:.*)go> `)
	me := os.Getpid()
	time.Sleep(3 * time.Second) // as the bench's row waits: past the worker's idle release
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	pss0 := childrenPSS(b, me)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		term.Send(fmt.Sprintf("v%d := []int{%d}\r", i, i))
		term.Expect(`go> `)
	}
	term.Send(fmt.Sprintf("v%d[0]+v0[0]\r", b.N-1))
	term.Expect(fmt.Sprintf(`\r\n%d\r\n(?:.*)go> `, b.N-1))
	b.StopTimer()
	worker := childrenPSS(b, me)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	time.Sleep(3 * time.Second)
	idle := childrenPSS(b, me)
	n := float64(b.N) * 1024
	b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/n, "host-heap-KB/op")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/n, "host-alloc-KB/op")
	b.ReportMetric(float64(worker-pss0)/n, "worker-PSS-KB/op")
	b.ReportMetric(float64(idle-pss0)/n, "worker-idle-PSS-KB/op")
}
