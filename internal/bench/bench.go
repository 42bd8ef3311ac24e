// Package bench measures replhost side by side with what a user would
// otherwise run: OpenSSH's sshd with the yaegi CLI as ForceCommand (the
// anchor). It starts both servers itself on 127.0.0.1, drives them with the
// same clients (golang.org/x/crypto/ssh, and OpenSSH's ssh, sftp and scp),
// alternates which goes first, and prints a markdown table of medians,
// p99 and ratios. Its load mode holds N sessions at one cell per second;
// its soak mode checks that goroutines, descriptors and workers return to
// their baseline. Every loop is bounded in time and count.
package bench

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is what a bench run measures and how much.
type Config struct {
	Replhost      string        // replhost binary; "" builds this module's cmd/replhost and cmd/replhost-worker
	Yaegi         string        // yaegi CLI; "" builds go.mod's version
	Rows          []string      // rows to run (names in allRows); nil: all
	Rounds        int           // A B rounds per row
	Cells         int           // cells per side per round of the round-trip row
	FrontendCells int           // cells through the front end (and memory growth)
	IdleSessions  int           // sessions of the idle-memory row
	UploadMiB     int           // upload size
	LoginTime     time.Duration // per side, logins/s row
	UDFRecords    int           // records per udf call
	RestoreCells  int           // journal length of the restore row
	Load          []int         // load mode: session counts (no table rows then)
	LoadDuration  time.Duration // load mode: how long each count holds
	LoadCells     string        // load mode: a CSV file of every cell (side, sessions, session, start, latency); "" none
	Soak          time.Duration // soak mode: how long (0: off)
	NoAnchor      bool          // replhost only
	Dir           string        // working directory; "" a temporary one, removed
	Benchmarks    string        // a BENCHMARKS.md whose generated section gets the report; "" none
	ServeArgs     []string      // extra `replhost serve` flags
	Stdout        io.Writer
	Log           io.Writer // progress lines
}

// allRows are the table's rows, in order.
var allRows = []string{"rt", "frontend", "oneshot", "upload", "idle", "logins", "udf", "restore"}

// Main parses args and runs the bench; it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "replbench: %v\n", err)
		return 2
	}
	if err := Run(c); err != nil {
		fmt.Fprintf(stderr, "replbench: %v\n", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stdout, stderr io.Writer) (Config, error) {
	c := Config{Stdout: stdout, Log: stderr}
	fs := flag.NewFlagSet("replbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Replhost, "replhost", "", "replhost binary (default: go build of this module's cmd/replhost, with cmd/replhost-worker beside it)")
	fs.StringVar(&c.Yaegi, "yaegi", "", "yaegi CLI (default: go build github.com/traefik/yaegi/cmd/yaegi at go.mod's version)")
	rows := fs.String("rows", strings.Join(allRows, ","), "rows to measure: "+strings.Join(allRows, ","))
	fs.IntVar(&c.Rounds, "rounds", 5, "A B rounds per row")
	fs.IntVar(&c.Cells, "cells", 200, "cells per side per round (round trip, CPU, bytes)")
	fs.IntVar(&c.FrontendCells, "frontend-cells", 1000, "cells through the front end per side (and memory growth)")
	fs.IntVar(&c.IdleSessions, "idle-sessions", 200, "idle sessions per side for the memory row")
	fs.IntVar(&c.UploadMiB, "upload-mib", 256, "upload size in MiB")
	fs.DurationVar(&c.LoginTime, "login-time", 10*time.Second, "logins/s: how long per side")
	fs.IntVar(&c.UDFRecords, "udf-records", 1000000, "records per udf call")
	fs.IntVar(&c.RestoreCells, "restore-cells", 100, "cells in the journal of the restore row")
	load := fs.String("load", "", "load mode: comma-separated session counts (e.g. 100,500,1000), each evaluating a cell per second")
	fs.DurationVar(&c.LoadDuration, "load-duration", 60*time.Second, "load mode: how long each count holds")
	fs.StringVar(&c.LoadCells, "load-cells", "", "load mode: also write every cell to this CSV file (side, sessions, session, start ms after the hold began, latency µs), to see when the slow ones happen")
	fs.DurationVar(&c.Soak, "soak", 0, "soak mode: churn sessions this long, then check goroutines, descriptors and workers are back at baseline")
	fs.BoolVar(&c.NoAnchor, "no-anchor", false, "measure replhost only")
	fs.StringVar(&c.Dir, "dir", "", "working directory (default: a temporary one, removed at the end)")
	fs.StringVar(&c.Benchmarks, "benchmarks", "", "also write the report into this file (BENCHMARKS.md) between its "+beginMark+" and "+endMark+" lines")
	quick := fs.Bool("quick", false, "a tiny pass (a few cells, 3 sessions, 1 MiB): checks the bench works, not its figures")
	serve := fs.String("serve-args", "", "extra flags for replhost serve, space-separated")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c.Rows = strings.Split(*rows, ",")
	for _, r := range c.Rows {
		if !contains(allRows, r) {
			return c, fmt.Errorf("--rows: unknown row %q; want some of %s", r, strings.Join(allRows, ","))
		}
	}
	for _, s := range strings.Split(*load, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 5000 {
			return c, fmt.Errorf("--load: %q is not a session count in 1..5000", s)
		}
		c.Load = append(c.Load, n)
	}
	c.ServeArgs = strings.Fields(*serve)
	if *quick {
		c.Rounds, c.Cells, c.FrontendCells, c.IdleSessions = 2, 5, 10, 3
		c.UploadMiB, c.LoginTime, c.UDFRecords, c.RestoreCells = 1, 500*time.Millisecond, 1000, 5
		if c.LoadDuration == 60*time.Second {
			c.LoadDuration = 3 * time.Second
		}
	}
	if c.Rounds < 1 || c.Cells < 1 || c.FrontendCells < 2 || c.IdleSessions < 1 || c.UploadMiB < 1 || c.UDFRecords < 1 || c.RestoreCells < 1 {
		return c, errors.New("counts must be positive")
	}
	if c.LoadDuration > time.Hour || c.Soak > 24*time.Hour {
		return c, errors.New("--load-duration is at most 1h, --soak at most 24h")
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// run is one bench run's state.
type run struct {
	Config
	dir        string
	ours, anch *target
	knownHosts string
	rows       []row
}

func (r *run) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, "replbench: "+format+"\n", args...)
	}
}

// sides are the targets measured, ours first.
func (r *run) sides() []*target {
	if r.anch == nil {
		return []*target{r.ours}
	}
	return []*target{r.ours, r.anch}
}

// order is the sides in round i's order: A B, then B A.
func (r *run) order(i int) []*target {
	s := r.sides()
	if i%2 == 1 && len(s) == 2 {
		return []*target{s[1], s[0]}
	}
	return s
}

// Run starts both servers, measures, and writes the report to c.Stdout
// (and into c.Benchmarks).
func Run(c Config) (err error) {
	if c.Benchmarks != "" {
		path := c.Benchmarks
		var report strings.Builder
		out := c.Stdout
		if out == nil {
			out = io.Discard
		}
		c.Stdout, c.Benchmarks = io.MultiWriter(out, &report), ""
		if err := Run(c); err != nil {
			return err
		}
		return replaceSection(path, report.String())
	}
	r := &run{Config: c}
	if r.Rows == nil {
		r.Rows = allRows
	}
	if r.Stdout == nil {
		r.Stdout = io.Discard
	}
	r.dir = c.Dir
	if r.dir == "" {
		if r.dir, err = os.MkdirTemp("", "replbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(r.dir)
	}
	for _, p := range []*string{&r.Replhost, &r.Yaegi} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	if err := r.build(); err != nil {
		return err
	}
	r.logf("starting replhost")
	if r.ours, err = startReplhost(r.Replhost, r.dir, r.ServeArgs); err != nil {
		return err
	}
	defer func() { r.ours.stop() }()
	if !r.NoAnchor {
		r.logf("starting the anchor: OpenSSH sshd, ForceCommand %s", r.Yaegi)
		if r.anch, err = startAnchor(r.dir, r.Yaegi, r.ours.keyFile, r.ours.key, r.logf); err != nil {
			return fmt.Errorf("anchor: %w", err)
		}
		defer r.anch.stop()
	}
	r.knownHosts = filepath.Join(r.dir, "known_hosts")
	if err := knownHosts(r.knownHosts, r.sides()...); err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(r.Stdout, "%s\n\n", machine())
	if len(r.Load) > 0 || r.Soak > 0 {
		if len(r.Load) > 0 {
			if err := r.loadMode(); err != nil {
				return err
			}
		}
		if r.Soak > 0 {
			if err := r.soakMode(); err != nil {
				return err
			}
		}
		fmt.Fprintf(r.Stdout, "\nload average at the end: %s; took %s\n", loadAvg(), time.Since(start).Round(time.Second))
		return nil
	}
	for _, name := range r.Rows {
		r.logf("row %s (load average %s)", name, loadAvg())
		if err := rowFuncs[name](r); err != nil {
			return fmt.Errorf("row %s: %w", name, err)
		}
	}
	var rows [][]string
	for _, x := range r.rows {
		rows = append(rows, []string{x.metric, x.ours, x.theirs, x.ratio, x.note})
	}
	table(r.Stdout, []string{"metric", "replhost (process)", "anchor (sshd + yaegi)", "ratio", "notes"}, rows)
	fmt.Fprintf(r.Stdout, "\nload average at the end: %s; took %s\n", loadAvg(), time.Since(start).Round(time.Second))
	return nil
}

// build makes the binaries not given: replhost from this module's tree,
// the yaegi CLI at go.mod's version of yaegi.
func (r *run) build() error {
	if r.Replhost == "" {
		r.Replhost = filepath.Join(r.dir, "replhost")
		r.logf("building replhost and its worker binary")
		// As the Dockerfile builds them: without cgo, go-landlock's psx
		// is the runtime's AllThreadsSyscall, not libpsx's signal-and-spin;
		// replhost-worker beside replhost, which runs its workers from it.
		if err := goBuild(r.dir+"/", "github.com/replhost/replhost/cmd/replhost github.com/replhost/replhost/cmd/replhost-worker", "CGO_ENABLED=0"); err != nil {
			return err
		}
	}
	if r.Yaegi == "" && !r.NoAnchor {
		r.Yaegi = filepath.Join(r.dir, "yaegi")
		r.logf("building the yaegi CLI")
		if err := goBuild(r.Yaegi, "github.com/traefik/yaegi/cmd/yaegi"); err != nil {
			return err
		}
	}
	return nil
}

// goBuild builds the packages pkgs (separated by spaces) into out, a
// directory if it ends in a slash.
func goBuild(out, pkgs string, env ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-o", out}, strings.Fields(pkgs)...)...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s (run the bench from the replhost module): %v\n%s", pkgs, err, b)
	}
	return nil
}

// machine describes where the figures come from.
func machine() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	ssh, _ := exec.Command("ssh", "-V").CombinedOutput()
	return fmt.Sprintf("%s, %d cores (%s), Linux %s, %s, %s; load average at the start: %s",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), model,
		strings.TrimSpace(string(kernel)), runtime.Version(), strings.TrimSpace(strings.SplitN(string(ssh), ",", 2)[0]), loadAvg())
}

// The generated section of BENCHMARKS.md lies between these lines.
const (
	beginMark = "<!-- replbench: begin -->"
	endMark   = "<!-- replbench: end -->"
)

// replaceSection puts report between path's markers, keeping the rest.
func replaceSection(path, report string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(b)
	i, j := strings.Index(text, beginMark), strings.Index(text, endMark)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s ... %s lines to write the report between", path, beginMark, endMark)
	}
	text = text[:i+len(beginMark)] + "\n" + report + "\n" + text[j:]
	return os.WriteFile(path, []byte(text), 0o644)
}
