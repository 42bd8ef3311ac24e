package bench

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rowFuncs measure the table's rows; each appends its rows to r.rows.
var rowFuncs = map[string]func(*run) error{
	"rt":       rowRoundTrip,
	"frontend": rowFrontend,
	"oneshot":  rowOneShot,
	"upload":   rowUpload,
	"idle":     rowIdle,
	"logins":   rowLogins,
	"udf":      rowUDF,
	"restore":  rowRestore,
}

const (
	waitCell  = 30 * time.Second // bound on one cell's answer
	waitLogin = 30 * time.Second // bound on one login
)

// perSide holds one measurement of each side, ours first.
type perSide[T any] map[*target]T

func (r *run) add(metric string, ours, theirs, rat, note string) {
	if r.anch == nil {
		theirs, rat = "not run", ""
	}
	r.rows = append(r.rows, row{metric, ours, theirs, rat, note})
}

// pair formats a value of each side with f and their ratio from v.
func (r *run) pair(metric string, v perSide[float64], f func(float64) string, note string) {
	ours, theirs := f(v[r.ours]), ""
	if r.anch != nil {
		theirs = f(v[r.anch])
	}
	r.add(metric, ours, theirs, ratio(v[r.ours], v[r.anch]), note)
}

// cell20 is the i-th cell of exactly 20 characters, and its value with x == 1.
func cell20(i int) (string, string) {
	a, b := 10000000+i%90000000, 100000000+i%900000000
	return fmt.Sprintf("x+%d+%d", a, b), strconv.Itoa(1 + a + b)
}

// rowRoundTrip: cells typed as whole lines into an open PTY session, each
// waited for (its value and the next prompt); the server tree's CPU time
// and the bytes it sent over those cells.
func rowRoundTrip(r *run) error {
	terms := perSide[*term]{}
	for _, t := range r.sides() {
		tm, err := t.openTerm(waitLogin)
		if err != nil {
			return err
		}
		defer tm.close()
		if err := tm.run("x := 1", waitCell); err != nil {
			return err
		}
		terms[t] = tm
	}
	rt, cpu, data, wire := perSide[samples]{}, perSide[float64]{}, perSide[float64]{}, perSide[float64]{}
	switches := perSide[float64]{}
	rootCPU := perSide[float64]{} // the server's first process alone: replhost's host, the anchor's listening sshd
	n := 0
	for i := 0; i < r.Rounds; i++ {
		for _, t := range r.order(i) {
			tm := terms[t]
			c0, d0, w0 := treeCPU(t.pid()), tm.got, tm.c.raw.read.Load()
			s0 := treeSwitches(t.pid())
			root0, _ := readStat(t.pid())
			for j := 0; j < r.Cells; j++ {
				line, want := cell20(i*r.Cells + j)
				start := time.Now()
				if err := tm.eval(line, want, waitCell); err != nil {
					return err
				}
				rt[t] = append(rt[t], time.Since(start))
			}
			cpu[t] += float64(treeCPU(t.pid()) - c0)
			switches[t] += float64(treeSwitches(t.pid()) - s0)
			root1, _ := readStat(t.pid())
			rootCPU[t] += float64(root1.cpu - root0.cpu)
			data[t] += float64(tm.got - d0)
			wire[t] += float64(tm.c.raw.read.Load() - w0)
		}
		n += r.Cells
	}
	med := perSide[float64]{}
	for t, s := range rt {
		med[t] = float64(s.median())
		cpu[t] /= float64(n)
		switches[t] /= float64(n)
		rootCPU[t] /= float64(n)
		data[t] /= float64(n)
		wire[t] /= float64(n)
	}
	r.add("eval round trip, open PTY session", rt[r.ours].medP99(), rt[r.anch].medP99(), ratio(med[r.ours], med[r.anch]),
		fmt.Sprintf("%d cells per side, `x+10000000+100000000` typed as one write", len(rt[r.ours])))
	r.pair("server CPU per cell", cpu, func(v float64) string { return ms(time.Duration(v)) },
		fmt.Sprintf("utime+stime of the server's process tree (/proc), 10 ms ticks; replhost's host process %s of it, its worker the rest",
			ms(time.Duration(rootCPU[r.ours]))))
	r.pair("context switches per cell", switches, func(v float64) string { return fmt.Sprintf("%.1f", v) },
		"voluntary and involuntary, every thread of the server's process tree (/proc/<pid>/task/*/status)")
	r.pair("bytes sent per 20-character cell", data, func(v float64) string { return fmt.Sprintf("%.0f", v) },
		fmt.Sprintf("channel data; on the wire (SSH framing, MACs): %.0f / %.0f", wire[r.ours], wire[r.anch]))
	return nil
}

// rowFrontend: cells that replhost's typed front end handles (composite
// literals), declared one after the other so the session grows; round trip
// of the first and last 5 %, and PSS growth of the server per cell.
func rowFrontend(r *run) error {
	terms := perSide[*term]{}
	for _, t := range r.sides() {
		tm, err := t.openTerm(waitLogin)
		if err != nil {
			return err
		}
		defer tm.close()
		if err := tm.eval("1+2", "3", waitCell); err != nil {
			return err
		}
		terms[t] = tm
	}
	// The reading before the cells waits for the servers to settle: right
	// after a login replhost's warm pool still starts the spare worker that
	// replaces the one taken, whose growth is no cell's.
	time.Sleep(idleSettle)
	pss0 := perSide[int64]{}
	for _, t := range r.sides() {
		pss0[t] = treePSS(t.pid())
	}
	rt := perSide[samples]{}
	const chunk = 100
	for i := 0; i*chunk < r.FrontendCells; i++ {
		for _, t := range r.order(i) {
			for j := i * chunk; j < min((i+1)*chunk, r.FrontendCells); j++ {
				start := time.Now()
				if err := terms[t].run(fmt.Sprintf("v%d := []int{%d}", j, j), waitCell); err != nil {
					return err
				}
				rt[t] = append(rt[t], time.Since(start))
			}
		}
	}
	// Check the session kept every cell.
	last := r.FrontendCells - 1
	growth, first, end := perSide[float64]{}, perSide[float64]{}, perSide[float64]{}
	for _, t := range r.sides() {
		if err := terms[t].eval(fmt.Sprintf("v%d[0]+v0[0]", last), strconv.Itoa(last), waitCell); err != nil {
			return err
		}
		growth[t] = float64(treePSS(t.pid())-pss0[t]) / float64(r.FrontendCells)
		k := max(1, len(rt[t])/20)
		first[t], end[t] = float64(rt[t][:k].median()), float64(rt[t][len(rt[t])-k:].median())
	}
	time.Sleep(idleSettle)
	growthIdle := perSide[float64]{}
	for _, t := range r.sides() {
		growthIdle[t] = float64(treePSS(t.pid())-pss0[t]) / float64(r.FrontendCells)
	}
	f := func(t *target) string {
		if t == nil {
			return ""
		}
		return fmt.Sprintf("%s → %s", ms(time.Duration(first[t])), ms(time.Duration(end[t])))
	}
	r.add(fmt.Sprintf("cells through the front end, round trip (%d cells)", r.FrontendCells), f(r.ours), f(r.anch),
		ratio(end[r.ours], end[r.anch]),
		fmt.Sprintf("`v%%d := []int{%%d}`; median of the first and the last %d; ratio of the last", max(1, len(rt[r.ours])/20)))
	r.pair("memory growth per cell", growth, kb, fmt.Sprintf("PSS of the server's tree, before (after the first cell and %v of settling) and right after the %d cells", idleSettle, r.FrontendCells))
	r.pair(fmt.Sprintf("memory growth per cell, after %v idle", idleSettle), growthIdle, kb,
		"the same before, the PSS after the cells read after the wait (a replhost worker gives memory back once it idled 2 s)")
	return nil
}

// script is the one-line program of the one-shot rows: both sides need the
// import (yaegi's CLI would import fmt itself; replhost's scripts have
// go run's rules).
const script = "import \"fmt\"\nfmt.Println(1+2)\n"

// rowOneShot: connect, run a one-line script from stdin, exit; with
// OpenSSH's ssh and with the Go client.
func rowOneShot(r *run) error {
	n := r.Rounds * 4
	viaSSH, viaGo := perSide[samples]{}, perSide[samples]{}
	for i := 0; i < n; i++ {
		for _, t := range r.order(i) {
			start := time.Now()
			cmd := exec.Command("ssh", append(t.opensshArgs(r.knownHosts), "-p", t.port, t.user+"@127.0.0.1")...)
			cmd.Stdin = strings.NewReader(script)
			out, err := runBounded(cmd, waitLogin)
			if err != nil || strings.TrimSpace(string(out)) != "3" {
				return fmt.Errorf("%s: ssh < script: %v: %q", t.name, err, out)
			}
			viaSSH[t] = append(viaSSH[t], time.Since(start))
		}
		for _, t := range r.order(i + 1) {
			start := time.Now()
			c, err := t.dial(waitLogin)
			if err != nil {
				return err
			}
			out, err := c.exec("", strings.NewReader(script), waitLogin)
			c.Close()
			if err != nil || strings.TrimSpace(out) != "3" {
				return fmt.Errorf("%s: Go client, script: %v: %q", t.name, err, out)
			}
			viaGo[t] = append(viaGo[t], time.Since(start))
		}
	}
	for _, x := range []struct {
		name string
		s    perSide[samples]
	}{{"connect, one-line script, exit (OpenSSH ssh)", viaSSH}, {"same, Go client", viaGo}} {
		r.add(x.name, x.s[r.ours].medP99(), x.s[r.anch].medP99(),
			ratio(float64(x.s[r.ours].median()), float64(x.s[r.anch].median())), fmt.Sprintf("%d runs per side", n))
	}
	return nil
}

// runBounded runs cmd and returns its stdout; it is killed after timeout.
func runBounded(cmd *exec.Cmd, timeout time.Duration) ([]byte, error) {
	var errOut strings.Builder
	cmd.Stderr = &errOut
	timer := time.AfterFunc(timeout, func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(errOut.String()))
	}
	return out, nil
}

// idleSettle is how long the memory rows let both servers idle before
// their second reading: longer than a replhost worker's idle release
// (sandbox's idleRelease, 2 s), the same wait for the anchor.
const idleSettle = 3 * time.Second

// rowIdle: N sessions open at once, each having run one cell; the PSS the
// server's tree grew by, per session.
func rowIdle(r *run) error {
	v, vIdle := perSide[float64]{}, perSide[float64]{}
	for _, t := range r.sides() {
		before := treePSS(t.pid())
		terms, err := openMany(t, r.IdleSessions, func(_ int, tm *term) error { return tm.eval("1+2", "3", waitCell) })
		if err == nil {
			v[t] = float64(treePSS(t.pid())-before) / float64(r.IdleSessions)
			time.Sleep(idleSettle)
			vIdle[t] = float64(treePSS(t.pid())-before) / float64(r.IdleSessions)
		}
		closeMany(terms)
		if err != nil {
			return err
		}
	}
	r.pair(fmt.Sprintf("idle PSS per session (%d)", r.IdleSessions), v, mib,
		"server tree's PSS with the sessions open, minus before, each session after one cell")
	r.pair(fmt.Sprintf("idle PSS per session (%d), after %v idle", r.IdleSessions, idleSettle), vIdle, mib,
		"the same, read after the wait")
	return nil
}

// openMany opens n terms on t, 8 logins at a time, and runs first in each.
func openMany(t *target, n int, first func(int, *term) error) ([]*term, error) {
	terms := make([]*term, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range terms {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			tm, err := t.openTerm(waitLogin)
			if err == nil {
				terms[i] = tm
				err = first(i, tm)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return terms, err
		}
	}
	return terms, nil
}

func closeMany(terms []*term) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for _, tm := range terms {
		if tm == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() { defer func() { <-sem; wg.Done() }(); tm.close() }()
	}
	wg.Wait()
}

// rowLogins: 4 clients log in (to the first prompt) and out again, as fast
// as they can, for LoginTime per side, split into rounds.
func rowLogins(r *run) error {
	const clients = 4
	lat, count, took := perSide[samples]{}, perSide[float64]{}, perSide[float64]{}
	per := r.LoginTime / time.Duration(r.Rounds)
	for i := 0; i < r.Rounds; i++ {
		for _, t := range r.order(i) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			var firstErr error
			start := time.Now()
			for c := 0; c < clients; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Since(start) < per {
						s := time.Now()
						tm, err := t.openTerm(waitLogin)
						d := time.Since(s)
						if err == nil {
							tm.close()
						}
						mu.Lock()
						if err != nil && firstErr == nil {
							firstErr = err
						}
						if err == nil {
							lat[t] = append(lat[t], d)
							count[t]++
						}
						mu.Unlock()
						if err != nil {
							return
						}
					}
				}()
			}
			wg.Wait()
			took[t] += time.Since(start).Seconds()
			if firstErr != nil {
				return firstErr
			}
		}
	}
	rate := perSide[float64]{}
	for t := range count {
		rate[t] = count[t] / took[t]
	}
	r.pair("logins/s (4 clients, login to prompt, then out)", rate, func(v float64) string { return fmt.Sprintf("%.0f", v) },
		"replhost's sessions end with :quit, the anchor's with the connection")
	r.add("login to first prompt, 4 clients at once", lat[r.ours].medP99(), lat[r.anch].medP99(),
		ratio(float64(lat[r.ours].median()), float64(lat[r.anch].median())), "Go client: TCP, key exchange, auth, PTY, shell")
	return nil
}

// newSession makes a detached replhost session with exec `new`.
func (r *run) newSession() (string, error) {
	c, err := r.ours.dial(waitLogin)
	if err != nil {
		return "", err
	}
	defer c.Close()
	out, err := c.exec("new", nil, waitLogin)
	return strings.TrimSpace(out), err
}
