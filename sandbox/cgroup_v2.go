package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup2"
)

// v2Mount is where the unified hierarchy is mounted when it is the only one.
const v2Mount = "/sys/fs/cgroup"

// v2OwnDir is the host's own cgroup on a cgroup v2 (unified) machine.
func v2OwnDir() (string, error) {
	if cgroups.Mode() != cgroups.Unified {
		return "", errors.New("not cgroup v2")
	}
	g, err := cgroup2.NestedGroupPath("")
	if err != nil {
		return "", err
	}
	return filepath.Join(v2Mount, g), nil
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

// v2Resources are a worker's limits in cgroup v2 terms: memory.max with no
// swap, pids.max, and the default cpu.weight, so that every group and every
// worker of a group gets an equal share.
func v2Resources(l limits) *cgroup2.Resources {
	noSwap := int64(0)
	weight := uint64(100)
	return &cgroup2.Resources{
		Memory: &cgroup2.Memory{Max: &l.memory, Swap: &noSwap},
		Pids:   &cgroup2.Pids{Max: l.threads},
		CPU:    &cgroup2.CPU{Weight: &weight},
	}
}

type v2Cgroup struct {
	m   *cgroup2.Manager
	rel string
	dir string
}

func newV2(rel string, l limits) (cgroup, error) {
	own, err := v2OwnDir()
	if err != nil {
		return nil, err
	}
	group, err := cgroup2.NestedGroupPath(rel)
	if err != nil {
		return nil, err
	}
	m, err := cgroup2.NewManager(v2Mount, group, v2Resources(l))
	if err != nil {
		return nil, err
	}
	return &v2Cgroup{m: m, rel: rel, dir: filepath.Join(own, rel)}, nil
}

func (c *v2Cgroup) add(pid int) error { return c.m.AddProc(uint64(pid)) }
func (c *v2Cgroup) remove() error     { return c.m.Delete() }
func (c *v2Cgroup) path() string      { return c.rel }

func (c *v2Cgroup) oomKilled() bool {
	n, _ := v2Field(filepath.Join(c.dir, "memory.events"), "oom_kill")
	return n > 0
}

func (c *v2Cgroup) threadCapHit() bool {
	n, _ := v2Field(filepath.Join(c.dir, "pids.events"), "max")
	return n > 0
}

func (c *v2Cgroup) cpuUsage() (uint64, error) {
	us, err := v2Field(filepath.Join(c.dir, "cpu.stat"), "usage_usec")
	return us * 1000, err
}

// v2Field reads one "key value" line of a cgroup v2 flat-keyed file.
func v2Field(file, key string) (uint64, error) {
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
