package bench

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/replhost/replhost/internal/procmem"
)

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// every Linux architecture Go supports).
const clockTick = 100

// stat holds the fields of /proc/<pid>/stat the bench reads.
type stat struct {
	ppid int
	cpu  time.Duration // utime+stime+cutime+cstime: its own and its reaped children's
	own  time.Duration // utime+stime: its own
}

func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
	if len(f) < 15 || f[0] == "Z" {
		return stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	var ticks, own int64
	for _, k := range []int{11, 12, 13, 14} {
		v, _ := strconv.ParseInt(f[k], 10, 64)
		ticks += v
		if k <= 12 {
			own += v
		}
	}
	return stat{ppid: ppid, cpu: time.Duration(ticks) * time.Second / clockTick, own: time.Duration(own) * time.Second / clockTick}, true
}

// tree lists root and its live descendants. Linux has no children list
// without CONFIG_PROC_CHILDREN here, so it reads every /proc/<pid>/stat:
// the bench runs on the host, not in a test, and needs the server's whole
// tree (OpenSSH forks twice per login).
func tree(root int) []int {
	entries, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, ok := readStat(pid); ok {
			kids[s.ppid] = append(kids[s.ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// treeCPU is the CPU time root's tree has used, children it reaped included.
func treeCPU(root int) time.Duration {
	var sum time.Duration
	for _, pid := range tree(root) {
		if s, ok := readStat(pid); ok {
			sum += s.cpu
		}
	}
	return sum
}

// pss is a process's proportional set size in bytes, 0 when it is gone.
func pss(pid int) int64 {
	r, _ := procmem.Of(pid)
	return r.PSS
}

// treePSS is the PSS of root's tree.
func treePSS(root int) int64 {
	var sum int64
	for _, pid := range tree(root) {
		sum += pss(pid)
	}
	return sum
}

// fds counts a process's open descriptors.
func fds(pid int) int {
	e, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(e)
}

// hostCPU is the machine's busy and total CPU time from /proc/stat.
func hostCPU() (busy, total time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		d := time.Duration(n) * time.Second / clockTick
		total += d
		if i != 3 && i != 4 { // idle, iowait
			busy += d
		}
	}
	return busy, total
}

// memAvailable is MemAvailable from /proc/meminfo, in bytes.
func memAvailable() int64 {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// loadAvg is /proc/loadavg's first three fields.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// treeSwitches counts the context switches (voluntary and not) of every
// live thread of root's tree: each is a sleep and a wakeup, the cost that
// dominates a cell on a VM (docs/capacity.md).
func treeSwitches(root int) int64 {
	var sum int64
	for _, pid := range tree(root) {
		dir := "/proc/" + strconv.Itoa(pid) + "/task"
		tasks, _ := os.ReadDir(dir)
		for _, t := range tasks {
			b, err := os.ReadFile(dir + "/" + t.Name() + "/status")
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if rest, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
					n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
					sum += n
				} else if rest, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
					n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
					sum += n
				}
			}
		}
	}
	return sum
}
