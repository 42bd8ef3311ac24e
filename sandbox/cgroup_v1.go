package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// v1Controllers are the cgroup v1 controllers a worker is put in.
var v1Controllers = []cgroup1.Name{cgroup1.Memory, cgroup1.Pids, cgroup1.Cpu}

// v1 is what this host's process learns once of the machine's cgroup v1
// hierarchy: reading /proc/self/mountinfo and /proc/self/cgroup takes
// milliseconds on a loaded machine, too slow for every worker.
var v1 struct {
	once sync.Once
	subs []cgroup1.Subsystem     // the controllers we use
	rel  map[cgroup1.Name]string // the host's own cgroup, by controller
	dirs map[cgroup1.Name]string // ... and its directory
	err  error
}

func v1Load() {
	v1.once.Do(func() {
		all, err := cgroup1.Default()
		if err != nil {
			v1.err = err
			return
		}
		own := cgroup1.NestedPath("")
		v1.rel, v1.dirs = make(map[cgroup1.Name]string), make(map[cgroup1.Name]string)
		for _, s := range all {
			p, ok := s.(interface{ Path(string) string })
			if !ok || !slices.Contains(v1Controllers, s.Name()) {
				continue
			}
			rel, err := own(s.Name())
			if err != nil {
				continue
			}
			v1.subs = append(v1.subs, s)
			v1.rel[s.Name()], v1.dirs[s.Name()] = rel, p.Path(rel)
		}
	})
}

// v1Hierarchy is the part of the machine's cgroup v1 hierarchy we use.
func v1Hierarchy() ([]cgroup1.Subsystem, error) {
	v1Load()
	return v1.subs, v1.err
}

// v1Path is rel below the host's own cgroup, in each controller.
func v1Path(rel string) cgroup1.Path {
	return func(n cgroup1.Name) (string, error) {
		own, ok := v1.rel[n]
		if !ok {
			return "", cgroup1.ErrControllerNotActive
		}
		return filepath.Join(own, rel), nil
	}
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
	v1Load()
	return v1.dirs
}

func v1Only() cgroup1.Hierarchy {
	return func() ([]cgroup1.Subsystem, error) { return v1Hierarchy() }
}

type v1Cgroup struct {
	cg   cgroup1.Cgroup
	rel  string
	dirs map[cgroup1.Name]string // the worker's cgroup, by controller
}

func v1Resources(l limits) *specs.LinuxResources {
	res := &specs.LinuxResources{
		Memory: &specs.LinuxMemory{Limit: &l.memory, Swap: &l.memory},
		Pids:   &specs.LinuxPids{Limit: &l.threads},
	}
	if _, err := os.Stat(filepath.Join(v1OwnDirs()[cgroup1.Memory], "memory.memsw.limit_in_bytes")); err != nil {
		res.Memory.Swap = nil // no swap accounting on this kernel
	}
	return res
}

func newV1(rel string, pid int, l limits) (cgroup, error) {
	cg, err := cgroup1.New(v1Path(rel), v1Resources(l), cgroup1.WithHierarchy(v1Only()))
	if err != nil {
		return nil, err
	}
	c := &v1Cgroup{cg: cg, rel: rel, dirs: make(map[cgroup1.Name]string)}
	for n, d := range v1OwnDirs() {
		c.dirs[n] = filepath.Join(d, rel)
	}
	if err := cg.Add(cgroup1.Process{Pid: pid}); err != nil {
		cg.Delete()
		return nil, err
	}
	return c, nil
}

func (c *v1Cgroup) setLimits(l limits) error {
	res := v1Resources(l)
	if res.Memory.Swap != nil {
		// memory.memsw.limit_in_bytes may never be below
		// memory.limit_in_bytes: to raise both, raise it first.
		// (containerd/cgroups v3.1.3 means to, but swaps the wrong pair.)
		if err := c.cg.Update(&specs.LinuxResources{Memory: &specs.LinuxMemory{Swap: res.Memory.Swap}}); err != nil && !errors.Is(err, syscall.EINVAL) {
			return err
		}
	}
	return c.cg.Update(res)
}

// setWeight sets cpu.shares, in units of groupWeight/1024.
func (c *v1Cgroup) setWeight(w uint64) error {
	shares := max(w*1024/groupWeight, 2)
	return c.cg.Update(&specs.LinuxResources{CPU: &specs.LinuxCPU{Shares: &shares}})
}

func (c *v1Cgroup) remove() error { return c.cg.Delete() }
func (c *v1Cgroup) path() string  { return c.rel }

func (c *v1Cgroup) oomKilled() bool {
	n, _ := flatKeyed(filepath.Join(c.dirs[cgroup1.Memory], "memory.oom_control"), "oom_kill")
	return n > 0
}

func (c *v1Cgroup) threadCapHit() bool {
	n, _ := flatKeyed(filepath.Join(c.dirs[cgroup1.Pids], "pids.events"), "max")
	return n > 0
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
