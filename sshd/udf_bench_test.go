package sshd_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/internal/workerbuild"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	gossh "golang.org/x/crypto/ssh"
)

var workerProfile = flag.String("workerprofile", "", "BenchmarkUDFCall/worker: write the worker process's CPU profile to this file")

// TestMain makes the test binary a replhost worker when the sandbox starts
// it as one (the benchmarks' process evaluator), as the sandbox tests do.
// Arguments "procs=N" set the worker's GOMAXPROCS, so that -cpu reaches
// the worker's udf goroutines too, and "cpuprofile=FILE" profiles it
// (the file is opened before the worker confines itself).
func TestMain(m *testing.M) {
	if os.Getenv(sandbox.WorkerEnv) != "" {
		os.Exit(benchWorker(os.Args[1:]))
	}
	code := m.Run()
	workerbuild.Cleanup() // BenchmarkIdleSessionMemory's worker binary
	os.Exit(code)
}

func benchWorker(args []string) int {
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "procs":
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				runtime.GOMAXPROCS(n)
			}
		case "cpuprofile":
			f, err := os.Create(v)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			defer pprof.StopCPUProfile()
		}
	}
	return sandbox.WorkerMain()
}

// inprocRepl is benchRepl; its CPU time is the process's own.
func inprocRepl() (repl.Config, func() time.Duration) {
	return benchRepl(), func() time.Duration { return 0 }
}

// workerRepl is benchRepl with each session in a worker process whose
// GOMAXPROCS is the benchmark's; the func returns the CPU time of the last
// worker started.
func workerRepl() (repl.Config, func() time.Duration) {
	c := benchRepl()
	var pid atomic.Int64
	args := []string{"procs=" + strconv.Itoa(runtime.GOMAXPROCS(0))}
	if *workerProfile != "" {
		args = append(args, "cpuprofile="+*workerProfile)
	}
	c.NewEvaluator = func(ctx context.Context, spec repl.EvaluatorSpec) (repl.Evaluator, error) {
		w, err := sandbox.StartWorker(ctx, sandbox.WorkerOptions{
			Dir: spec.Dir, Stdout: spec.Stdout, Stderr: spec.Stderr,
			Args: args,
		})
		if err == nil {
			pid.Store(int64(w.PID()))
		}
		return w, err
	}
	return c, func() time.Duration { return procCPU(int(pid.Load())) }
}

// selfCPU is the CPU time, user and system, this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time process pid has used, 0 if unknown.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command, which ends with the last ')': state is
	// field 3, utime and stime are 14 and 15, in clock ticks of 10 ms.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// Input lines, the same as internal/nativeudf's BenchmarkRun's.
func upLine(dst []byte, i int) []byte {
	return strconv.AppendInt(append(dst, "hello world, record "...), int64(i), 10)
}

func addLine(dst []byte, i int) []byte {
	dst = strconv.AppendInt(append(dst, '['), int64(i), 10)
	return append(strconv.AppendInt(append(dst, ','), int64(i%1000), 10), ']')
}

// benchUDFs registers the benchmarks' UDFs, named as BENCHMARKS.md's rows.
const benchUDFs = `import "udf"; import "strings"
udf.Register("up-native-func", strings.ToUpper)
udf.Register("up-interpreted", func(s string) string { return strings.ToUpper(s) })
udf.Register("json-add", func(a, b int) int { return a + b })`

// benchLines are the input records of each benchmark UDF.
var benchLines = []struct {
	name string
	line func([]byte, int) []byte
}{
	{"up-native-func", upLine},
	{"up-interpreted", upLine},
	{"json-add", addLine},
}

// BenchmarkUDFCall streams b.N generated records through `udf call` over
// one SSH connection to the real server and reads all the output, end to
// end: client and server (x/crypto/ssh both) share the process and its
// GOMAXPROCS. Run with -cpu 1,2 and a fixed -benchtime, e.g. 1000000x.
// Besides records/s it reports the CPU time per record of the whole
// process plus the worker's, which holds when others load the machine.
func BenchmarkUDFCall(b *testing.B) {
	for _, ev := range []struct {
		name string
		cfg  func() (repl.Config, func() time.Duration)
	}{{"inproc", inprocRepl}, {"worker", workerRepl}} {
		b.Run(ev.name, func(b *testing.B) {
			cfg, otherCPU := ev.cfg()
			h := testhost.Start(b, testhost.Options{Repl: cfg})
			id := newSession(b, h, "alice")
			mustEval(b, h, "alice", id, benchUDFs)
			c := h.Dial(b, "alice")
			for _, u := range benchLines {
				b.Run(u.name, func(b *testing.B) {
					self, other := selfCPU(), otherCPU()
					streamRecords(b, c, id, u.name, b.N, u.line)
					self, other = selfCPU()-self, otherCPU()-other
					perRecord := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
					// CPU time per record, client included: the figure that
					// holds better when other work shares the machine.
					b.ReportMetric(perRecord(self+other), "cpu-ns/record")
					if ev.name == "worker" {
						b.ReportMetric(perRecord(other), "worker-cpu-ns/record")
					}
				})
			}
		})
	}
}

// BenchmarkUDFCallOpenSSH is BenchmarkUDFCall/inproc with OpenSSH's ssh as
// the client, a process of its own as for real users, so that the
// benchmark's process holds only the server (and the generator and line
// counter); client-cpu-ns/record is ssh's.
func BenchmarkUDFCallOpenSSH(b *testing.B) {
	if _, err := exec.LookPath("ssh"); err != nil {
		b.Skip("no ssh")
	}
	h := testhost.Start(b, testhost.Options{Repl: benchRepl()})
	id := newSession(b, h, "alice")
	mustEval(b, h, "alice", id, benchUDFs)
	args := append(h.SSHArgs(b, "alice"), h.HostName())
	for _, u := range benchLines {
		b.Run(u.name, func(b *testing.B) {
			cmd := exec.Command("ssh", append(args[:len(args):len(args)], "udf call --session "+id+" "+u.name)...)
			self := selfCPU()
			lines := pipeRecords(b, cmd, b.N, u.line)
			self = selfCPU() - self
			client := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			if lines != b.N {
				b.Fatalf("udf call %s: %d lines; want %d", u.name, lines, b.N)
			}
			perRecord := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(perRecord(self+client), "cpu-ns/record")
			b.ReportMetric(perRecord(client), "client-cpu-ns/record")
		})
	}
}

// pipeRecords runs cmd with n records made by line on its stdin and
// returns the number of lines it wrote.
func pipeRecords(tb testing.TB, cmd *exec.Cmd, n int, line func([]byte, int) []byte) int {
	tb.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go writeRecords(stdin, n, line)
	lines := countLines(stdout)
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("%s: %v, stderr %q", cmd, err, errOut.String())
	}
	return lines
}

// writeRecords writes n records made by line to w and closes it.
func writeRecords(w io.WriteCloser, n int, line func([]byte, int) []byte) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for i := 1; i <= n; i++ {
		buf = append(line(buf[:0], i), '\n')
		if _, err := bw.Write(buf); err != nil {
			break // the call ended early; its status says why
		}
	}
	bw.Flush()
	w.Close()
}

// countLines reads r to its end and counts its lines.
func countLines(r io.Reader) int {
	lines := 0
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		lines += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return lines
		}
	}
}

// streamRecords runs `udf call` of name on c with n records made by line
// and reads its output to the end, counting lines.
func streamRecords(tb testing.TB, c *gossh.Client, id, name string, n int, line func([]byte, int) []byte) {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	stdin, _ := s.StdinPipe()
	stdout, _ := s.StdoutPipe()
	var errOut bytes.Buffer
	s.Stderr = &errOut
	if err := s.Start("udf call --session " + id + " " + name); err != nil {
		tb.Fatal(err)
	}
	go writeRecords(stdin, n, line)
	lines := countLines(stdout)
	if err := s.Wait(); err != nil || lines != n {
		tb.Fatalf("udf call %s: %d lines, %v, stderr %q; want %d lines", name, lines, err, errOut.String(), n)
	}
}
