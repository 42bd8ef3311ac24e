package bench

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// loadResult is one side's figures at one session count.
type loadResult struct {
	sessions, opened int
	cells            int64
	lat              samples
	cellLog          []cellRecord // every cell, in no order
	errs, mixed      int64
	firstErr         error
	hostCPU          float64 // share of the machine's CPU during the hold, 0..1
	serverCPU        time.Duration
	rootCPU          time.Duration // of it, the server's root process (replhost: the host, not its workers)
	pss              int64         // server tree's PSS at the end of the hold
	availDrop        int64         // MemAvailable at the start minus at the end of the hold
	// slow and hostSlow are the cells over slowCell as the client saw
	// them and as the host timed them (its cell histogram's bucket nearest
	// slowCell, hostBound; hostCells in all): a tail the host did not see
	// was the client's or the terminal's, SSH included. hostCells < 0:
	// no host figures (the anchor).
	slow                int64
	hostSlow, hostCells float64
	hostBound           float64
	took                time.Duration
}

// slowCell is the latency the load's aim bounds the p99 by.
const slowCell = 100 * time.Millisecond

// hostCellHistogram is replhost's histogram of the time to run a cell
// (from the line's arrival to its value, terminal output excluded).
const hostCellHistogram = "replhost_cell_duration_seconds"

// hostCellsOver reads how many cells the host timed over about slowCell,
// and how many in all; ok false without the host's metrics.
func hostCellsOver(t *target) (over, all, bound float64, ok bool) {
	if t.metrics == "" {
		return 0, 0, 0, false
	}
	le, bound, err := t.metricsBucket(hostCellHistogram, slowCell.Seconds())
	if err != nil {
		return 0, 0, 0, false
	}
	all, err = t.metricsValue(hostCellHistogram + "_count")
	if err != nil {
		return 0, 0, 0, false
	}
	return all - le, all, bound, true
}

// cellRecord is one cell of a load run: which session, when it was typed
// (after the hold began) and how long until its value and prompt showed.
type cellRecord struct {
	session    int
	start, lat time.Duration
}

// loadMode holds each count of sessions on each side for LoadDuration,
// every session evaluating one cell per second.
func (r *run) loadMode() error {
	var rows [][]string
	var cellsCSV *csv.Writer
	if r.LoadCells != "" {
		f, err := os.Create(r.LoadCells)
		if err != nil {
			return err
		}
		defer f.Close()
		cellsCSV = csv.NewWriter(f)
		cellsCSV.Write([]string{"server", "sessions", "session", "start_ms", "latency_us"})
	}
	for i, n := range r.Load {
		for _, t := range r.order(i) {
			r.logf("load: %d sessions on %s for %s (load average %s)", n, t.name, r.LoadDuration, loadAvg())
			res := r.hold(t, n, r.LoadDuration, time.Second)
			if cellsCSV != nil {
				slices.SortFunc(res.cellLog, func(a, b cellRecord) int { return cmp.Compare(a.start, b.start) })
				for _, c := range res.cellLog {
					cellsCSV.Write([]string{t.name, strconv.Itoa(n), strconv.Itoa(c.session),
						strconv.FormatFloat(float64(c.start)/float64(time.Millisecond), 'f', 3, 64),
						strconv.FormatInt(c.lat.Microseconds(), 10)})
				}
				cellsCSV.Flush()
				if err := cellsCSV.Error(); err != nil {
					return fmt.Errorf("--load-cells: %w", err)
				}
			}
			errText := strconv.FormatInt(res.errs, 10)
			if res.firstErr != nil {
				errText += fmt.Sprintf(" (first: %.120s)", res.firstErr)
			}
			rows = append(rows, []string{strconv.Itoa(n), t.name, fmt.Sprintf("%d/%d", res.opened, n),
				strconv.FormatInt(res.cells, 10), ms(res.lat.median()), ms(res.lat.p99()), ms(res.lat.quantile(1)),
				slowText(res), errText, strconv.FormatInt(res.mixed, 10), fmt.Sprintf("%.0f %%", res.hostCPU*100),
				ms(res.serverCPU / time.Duration(max(1, res.cells))), ms(res.rootCPU / time.Duration(max(1, res.cells))),
				mib(float64(res.pss)), mib(float64(res.availDrop))})
		}
	}
	fmt.Fprintf(r.Stdout, "Load: N sessions at once (logged in 8 at a time), each typing one cell a second (`c++; c`, checked against a counter only that session knows), for %s after all logged in. Over 100 ms: the share of cells the client waited longer for, and of those the host timed (its cell histogram, from the line's arrival to the value: a slow cell the host did not see waited in the client, SSH or the terminal).\n\n", r.LoadDuration)
	table(r.Stdout, []string{"sessions", "server", "logged in", "cells", "p50", "p99", "max", "over 100 ms: client / host-timed", "errors", "mixed-up state",
		"host CPU", "server CPU per cell", "of it, root process", "server PSS", "MemAvailable drop"}, rows)
	return nil
}

// slowText is the share of cells over slowCell as the client and the host
// saw them.
func slowText(res loadResult) string {
	c := fmt.Sprintf("%.2f %%", 100*float64(res.slow)/float64(max(1, res.cells)))
	if res.hostCells < 0 {
		return c + " / –"
	}
	return fmt.Sprintf("%s / %.2f %% (> %.0f ms)", c, 100*res.hostSlow/max(1, res.hostCells), res.hostBound*1000)
}

// hold logs n sessions in (8 at a time), then has each evaluate a cell
// every period for d, and logs them out. Each session starts its counter
// at a secret of its own and checks every value it is shown.
func (r *run) hold(t *target, n int, d, period time.Duration) loadResult {
	res := loadResult{sessions: n}
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		res.errs++
		if res.firstErr == nil {
			res.firstErr = err
		}
		mu.Unlock()
	}
	var cells, mixed atomic.Int64
	avail0 := memAvailable()
	// Each session sets its counter as it logs in, so that no burst of a
	// thousand cells at once precedes the clock (its backlog, the host's
	// collector and the workers' catching up, spilled into the first
	// seconds measured).
	secrets := make([]int, n)
	for i := range secrets {
		secrets[i] = 1_000_000 + rand.IntN(1_000_000_000)
	}
	set := make([]error, n)
	terms, _ := openMany(t, n, func(i int, tm *term) error {
		set[i] = tm.run("c := "+strconv.Itoa(secrets[i]), waitCell)
		return set[i]
	})
	for i, tm := range terms {
		if tm == nil {
			fail(fmt.Errorf("login %d failed", i))
			continue
		}
		res.opened++
		if set[i] != nil {
			fail(set[i])
			tm.close()
			terms[i] = nil
		}
	}
	var wg sync.WaitGroup
	cpu0, busy0, total0 := treeCPU(t.pid()), time.Duration(0), time.Duration(0)
	busy0, total0 = hostCPU()
	root0, _ := readStat(t.pid())
	over0, all0, _, hostOK := hostCellsOver(t)
	start := time.Now()
	r.logf("load: %d sessions logged in; the hold begins (%s)", res.opened, start.UTC().Format("15:04:05.000"))
	lats := make([]samples, n)
	logs := make([][]cellRecord, n)
	for i, tm := range terms {
		if tm == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A fixed phase per session, i/n of the period, so that the
			// cells spread evenly over the second as a real load's would,
			// the same in every run and on both sides.
			next := start.Add(period * time.Duration(i) / time.Duration(n))
			for k := 1; ; k++ {
				time.Sleep(time.Until(next))
				if time.Since(start) >= d {
					return
				}
				s := time.Now()
				out, err := tm.capture("c++; c", waitCell)
				if err != nil {
					fail(err)
					return
				}
				lats[i] = append(lats[i], time.Since(s))
				logs[i] = append(logs[i], cellRecord{session: i, start: s.Sub(start), lat: time.Since(s)})
				cells.Add(1)
				if !bytes.Contains(out, fmt.Appendf(nil, t.result, strconv.Itoa(secrets[i]+k))) {
					mixed.Add(1)
					fail(fmt.Errorf("session %d: cell %d printed %q, want %d", i, k, out, secrets[i]+k))
					return
				}
				next = next.Add(period)
			}
		}()
	}
	wg.Wait()
	res.took = time.Since(start)
	busy1, total1 := hostCPU()
	if total1 > total0 {
		res.hostCPU = float64(busy1-busy0) / float64(total1-total0)
	}
	res.serverCPU = treeCPU(t.pid()) - cpu0
	if root1, ok := readStat(t.pid()); ok {
		res.rootCPU = root1.own - root0.own
	}
	res.hostCells = -1
	if over1, all1, bound, ok := hostCellsOver(t); ok && hostOK {
		res.hostSlow, res.hostCells, res.hostBound = over1-over0, all1-all0, bound
	}
	res.pss = treePSS(t.pid())
	res.availDrop = avail0 - memAvailable()
	for i, l := range lats {
		for _, d := range l {
			if d > slowCell {
				res.slow++
			}
		}
		res.lat = append(res.lat, l...)
		res.cellLog = append(res.cellLog, logs[i]...)
	}
	res.cells, res.mixed = cells.Load(), mixed.Load()
	closeMany(terms)
	return res
}

// soakMode churns sessions on replhost for Soak: 20 loops, each logging
// in, evaluating 5 checked cells and quitting, over and over; then it
// waits (at most 60 s) for the host's goroutines, descriptors and worker
// processes to come back to what they were before.
func (r *run) soakMode() error {
	t := r.ours
	type gauge struct{ goroutines, fds, workers int }
	measure := func() (gauge, error) {
		g, err := t.metricsValue("go_goroutines")
		return gauge{int(g), fds(t.pid()), len(tree(t.pid())) - 1}, err
	}
	// Logins in flight stay under both servers' admission limits
	// (MaxStartups 10:30:100; replhost's per-source cap of 8).
	logins := make(chan struct{}, 8)
	// Warm up: one session in and out, so that lazily started parts count in the baseline.
	if err := r.churnOnce(t, 5, logins); err != nil {
		return err
	}
	// The warm-up's session took a pool worker; the baseline is the idle
	// host with its pool refilled (replhost's default --pool-size, 2:
	// sandbox.DefaultPoolSize, not imported to keep yaegi out of the bench).
	base, err := measure()
	for deadline := time.Now().Add(30 * time.Second); err == nil && base.workers < 2 && time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		base, err = measure()
	}
	if err != nil {
		return err
	}
	r.logf("soak: %s of session churn on replhost, baseline %+v", r.Soak, base)
	var sessions, errs atomic.Int64
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	peak := base
	stopPeak := make(chan struct{})
	peakDone := make(chan struct{})
	go func() {
		defer close(peakDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopPeak:
				return
			case <-tick.C:
				if g, err := measure(); err == nil {
					peak = gauge{max(peak.goroutines, g.goroutines), max(peak.fds, g.fds), max(peak.workers, g.workers)}
				}
			}
		}
	}()
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < r.Soak {
				if err := r.churnOnce(t, 5, logins); err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, &err)
					continue
				}
				sessions.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stopPeak)
	<-peakDone
	var after gauge
	back := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if after, err = measure(); err != nil {
			return err
		}
		// The warm pool refills and the metrics scrape itself holds a
		// few goroutines: allow that much.
		if after.goroutines <= base.goroutines+4 && after.fds <= base.fds+2 && after.workers <= base.workers {
			back = true
			break
		}
	}
	verdict := "back at baseline"
	if !back {
		verdict = "NOT back at baseline after 60 s"
	}
	first := ""
	if p := firstErr.Load(); p != nil {
		first = fmt.Sprintf(" (first: %.120s)", *p)
	}
	fmt.Fprintf(r.Stdout, "\nSoak: %s of churn on replhost (20 loops: log in, 5 checked cells, :quit), %d sessions, %d errors%s; %s.\n\n",
		r.Soak, sessions.Load(), errs.Load(), first, verdict)
	table(r.Stdout, []string{"", "goroutines", "descriptors", "worker processes"}, [][]string{
		{"baseline", strconv.Itoa(base.goroutines), strconv.Itoa(base.fds), strconv.Itoa(base.workers)},
		{"peak", strconv.Itoa(peak.goroutines), strconv.Itoa(peak.fds), strconv.Itoa(peak.workers)},
		{"after", strconv.Itoa(after.goroutines), strconv.Itoa(after.fds), strconv.Itoa(after.workers)},
	})
	if !back || errs.Load() > 0 {
		return errors.New("soak failed: " + verdict + fmt.Sprintf(", %d errors", errs.Load()))
	}
	return nil
}

// churnOnce logs in (holding a slot of logins meanwhile), evaluates cells
// checked against a secret counter, and quits.
func (r *run) churnOnce(t *target, cells int, logins chan struct{}) error {
	logins <- struct{}{}
	tm, err := t.openTerm(waitLogin)
	<-logins
	if err != nil {
		return err
	}
	defer tm.close()
	secret := 1_000_000 + rand.IntN(1_000_000_000)
	if err := tm.run("c := "+strconv.Itoa(secret), waitCell); err != nil {
		return err
	}
	for k := 1; k <= cells; k++ {
		if err := tm.eval("c++; c", strconv.Itoa(secret+k), waitCell); err != nil {
			return err
		}
	}
	return nil
}
