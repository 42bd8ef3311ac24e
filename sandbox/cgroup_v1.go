package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// v1Controllers are the cgroup v1 controllers a worker is put in; cpuacct
// gives the CPU time that the disk watcher goes by, and is often mounted
// together with cpu.
var v1Controllers = []cgroup1.Name{cgroup1.Memory, cgroup1.Pids, cgroup1.Cpu, cgroup1.Cpuacct}

// v1Hierarchy is the part of the machine's cgroup v1 hierarchy we use.
func v1Hierarchy() ([]cgroup1.Subsystem, error) {
	all, err := cgroup1.Default()
	if err != nil {
		return nil, err
	}
	var ours []cgroup1.Subsystem
	for _, s := range all {
		for _, n := range v1Controllers {
			if s.Name() == n {
				ours = append(ours, s)
			}
		}
	}
	return ours, nil
}

// v1Available needs the memory and pids controllers, writable at the host's
// own cgroup.
func v1Available() error {
	dirs := v1OwnDirs()
	for _, n := range []cgroup1.Name{cgroup1.Memory, cgroup1.Pids} {
		dir, ok := dirs[n]
		if !ok {
			return errors.New("no cgroup v1 " + string(n) + " controller")
		}
		if err := writable(dir); err != nil {
			return err
		}
	}
	return nil
}

// v1OwnDirs are the host's own cgroup directories, by controller.
func v1OwnDirs() map[cgroup1.Name]string {
	subs, err := v1Hierarchy()
	if err != nil {
		return nil
	}
	own := cgroup1.NestedPath("")
	dirs := make(map[cgroup1.Name]string)
	for _, s := range subs {
		p, ok := s.(interface{ Path(string) string })
		rel, err := own(s.Name())
		if ok && err == nil {
			dirs[s.Name()] = p.Path(rel)
		}
	}
	return dirs
}

type v1Cgroup struct {
	cg   cgroup1.Cgroup
	rel  string
	dirs map[cgroup1.Name]string
}

func newV1(rel string, l limits) (cgroup, error) {
	shares := uint64(1024)
	res := &specs.LinuxResources{
		Memory: &specs.LinuxMemory{Limit: &l.memory, Swap: &l.memory},
		Pids:   &specs.LinuxPids{Limit: &l.threads},
		CPU:    &specs.LinuxCPU{Shares: &shares},
	}
	own := v1OwnDirs()
	if _, err := os.Stat(filepath.Join(own[cgroup1.Memory], "memory.memsw.limit_in_bytes")); err != nil {
		res.Memory.Swap = nil // no swap accounting on this kernel
	}
	cg, err := cgroup1.New(cgroup1.NestedPath(rel), res, cgroup1.WithHierarchy(v1Hierarchy))
	if err != nil {
		return nil, err
	}
	dirs := make(map[cgroup1.Name]string)
	for n, d := range own {
		dirs[n] = filepath.Join(d, rel)
	}
	return &v1Cgroup{cg: cg, rel: rel, dirs: dirs}, nil
}

func (c *v1Cgroup) add(pid int) error { return c.cg.Add(cgroup1.Process{Pid: pid}) }
func (c *v1Cgroup) remove() error     { return c.cg.Delete() }
func (c *v1Cgroup) path() string      { return c.rel }

func (c *v1Cgroup) oomKilled() bool {
	b, err := os.ReadFile(filepath.Join(c.dirs[cgroup1.Memory], "memory.oom_control"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok {
			count, _ := strconv.Atoi(n)
			return count > 0
		}
	}
	return false
}

func (c *v1Cgroup) threadCapHit() bool {
	n, _ := v2Field(filepath.Join(c.dirs[cgroup1.Pids], "pids.events"), "max")
	return n > 0
}

func (c *v1Cgroup) cpuUsage() (uint64, error) {
	dir, ok := c.dirs[cgroup1.Cpuacct]
	if !ok {
		return 0, errors.New("no cgroup v1 cpuacct controller")
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}

func ownCgroupDirs() []string {
	if v2, err := v2OwnDir(); err == nil {
		return []string{v2}
	}
	var dirs []string
	for _, d := range v1OwnDirs() {
		dirs = append(dirs, d)
	}
	return dirs
}
