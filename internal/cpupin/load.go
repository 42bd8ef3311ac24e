package cpupin

import (
	"bytes"
	"os"
	"strconv"
)

// load tells how busy each CPU the process may use was between two calls
// of Sample, from /proc/stat (the kernel's clock ticks: 1/100 s, so an
// interval of 100 ms is coarse; mean several).
type load struct {
	cpus []int      // those of the Pinner
	last []cpuTimes // at the last Sample, as cpus
	have bool       // last holds a sample
}

// cpuTimes is one CPU's time, in clock ticks: busy (user, nice, system,
// irq, softirq and steal, which a guest wanted to run and could not) and
// all (busy, idle and iowait).
type cpuTimes struct{ busy, all uint64 }

// Sample returns each of CPUs' busy share since the last call (see
// load.sample). One goroutine calls it: the controller's.
func (p *Pinner) Sample() []float64 { return p.load.sample() }

// sample returns each CPU's busy share, 0 to 1, since the last call, in
// the order of the Pinner's CPUs; nil at the first call and when
// /proc/stat cannot be read.
func (l *load) sample() []float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		l.have = false
		return nil
	}
	now := make([]cpuTimes, len(l.cpus))
	if !parseStat(b, l.cpus, now) {
		l.have = false
		return nil
	}
	var busy []float64
	if l.have {
		busy = make([]float64, len(l.cpus))
		for i := range now {
			if now[i].all > l.last[i].all && now[i].busy >= l.last[i].busy { // else reset (hotplug)
				busy[i] = min(1, float64(now[i].busy-l.last[i].busy)/float64(now[i].all-l.last[i].all))
			}
		}
	}
	l.last, l.have = now, true
	return busy
}

// parseStat fills times, as cpus, from the "cpuN" lines of /proc/stat,
// and reports whether every CPU of cpus had one.
func parseStat(b []byte, cpus []int, times []cpuTimes) bool {
	at := make(map[int]int, len(cpus))
	for i, c := range cpus {
		at[c] = i
	}
	found := 0
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) < 9 || !bytes.HasPrefix(f[0], []byte("cpu")) || len(f[0]) == 3 {
			continue
		}
		cpu, err := strconv.Atoi(string(f[0][3:]))
		i, ok := at[cpu]
		if err != nil || !ok {
			continue
		}
		var v [8]uint64 // user nice system idle iowait irq softirq steal
		for j := range v {
			if v[j], err = strconv.ParseUint(string(f[1+j]), 10, 64); err != nil {
				return false
			}
		}
		busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
		times[i] = cpuTimes{busy: busy, all: busy + v[3] + v[4]}
		found++
	}
	return found == len(cpus)
}
