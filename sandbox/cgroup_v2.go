package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup2"
)

// v2Mount is where the unified hierarchy is mounted when it is the only one.
const v2Mount = "/sys/fs/cgroup"

var v2 struct {
	once  sync.Once
	group string // the host's own cgroup, as in /proc/self/cgroup
	err   error
}

// v2OwnDir is the host's own cgroup on a cgroup v2 (unified) machine,
// learnt once.
func v2OwnDir() (string, error) {
	if cgroups.Mode() != cgroups.Unified {
		return "", errors.New("not cgroup v2")
	}
	v2.once.Do(func() { v2.group, v2.err = cgroup2.NestedGroupPath("") })
	return filepath.Join(v2Mount, v2.group), v2.err
}

// v2Available needs the memory and pids controllers delegated to the host's
// cgroup. cgroup v2 lets a cgroup with processes enable controllers for its
// children only at the root: under systemd, run the host with Delegate=yes
// and DelegateSubgroup= so that its own process sits in a leaf.
func v2Available() error {
	own, err := v2OwnDir()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(own, "cgroup.controllers"))
	if err != nil {
		return err
	}
	for _, c := range []string{"memory", "pids"} {
		if !hasWord(strings.TrimSpace(string(b)), c, " ") {
			return errors.New("cgroup v2 controller " + c + " not delegated to " + own)
		}
	}
	return writable(own)
}

// v2Resources are a worker's limits in cgroup v2 terms: memory.max, no
// swap where swap is accounted, pids.max, and the default cpu.weight, so
// that every group and every worker of a group gets an equal share.
func v2Resources(l limits, swapAccounted bool) *cgroup2.Resources {
	weight := uint64(100)
	r := &cgroup2.Resources{
		Memory: &cgroup2.Memory{Max: &l.memory},
		Pids:   &cgroup2.Pids{Max: l.threads},
		CPU:    &cgroup2.CPU{Weight: &weight},
	}
	if swapAccounted {
		noSwap := int64(0)
		r.Memory.Swap = &noSwap
	}
	return r
}

type v2Cgroup struct {
	m   *cgroup2.Manager
	rel string
	dir string
}

func newV2(rel string, pid int, l limits) (cgroup, error) {
	own, err := v2OwnDir()
	if err != nil {
		return nil, err
	}
	_, err = os.Stat(filepath.Join(own, "memory.swap.max"))
	m, err := cgroup2.NewManager(v2Mount, filepath.Join(v2.group, rel), v2Resources(l, err == nil))
	if err != nil {
		return nil, err
	}
	if err := m.AddProc(uint64(pid)); err != nil {
		m.Delete()
		return nil, err
	}
	return &v2Cgroup{m: m, rel: rel, dir: filepath.Join(own, rel)}, nil
}

func (c *v2Cgroup) setLimits(l limits) error {
	_, err := os.Stat(filepath.Join(c.dir, "memory.swap.max"))
	r := v2Resources(l, err == nil)
	r.CPU = nil
	return c.m.Update(r)
}

// setWeight sets cpu.weight, in units of groupWeight/100.
func (c *v2Cgroup) setWeight(w uint64) error {
	weight := max(w*100/groupWeight, 1)
	return c.m.Update(&cgroup2.Resources{CPU: &cgroup2.CPU{Weight: &weight}})
}

func (c *v2Cgroup) remove() error { return c.m.Delete() }
func (c *v2Cgroup) path() string  { return c.rel }

func (c *v2Cgroup) oomKilled() bool {
	n, _ := flatKeyed(filepath.Join(c.dir, "memory.events"), "oom_kill")
	return n > 0
}

func (c *v2Cgroup) threadCapHit() bool {
	n, _ := flatKeyed(filepath.Join(c.dir, "pids.events"), "max")
	return n > 0
}

// flatKeyed reads one "key value" line of a cgroup's flat-keyed file.
func flatKeyed(file, key string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return parseFlatKeyed(b, key)
}

func parseFlatKeyed(b []byte, key string) (uint64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+" "); ok {
			return strconv.ParseUint(v, 10, 64)
		}
	}
	return 0, errors.New("no " + key)
}

func writable(dir string) error {
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return errors.New("cgroup " + dir + ": " + err.Error())
	}
	return nil
}
