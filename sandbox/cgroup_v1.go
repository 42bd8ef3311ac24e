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

// v1Worker and v1Group are the controllers of a worker's own cgroup and of
// its group's.
var (
	v1Worker = []cgroup1.Name{cgroup1.Memory, cgroup1.Pids}
	v1Group  = []cgroup1.Name{cgroup1.Cpu}
)

func v1Only(names []cgroup1.Name) cgroup1.Hierarchy {
	return func() ([]cgroup1.Subsystem, error) {
		subs, err := v1Hierarchy()
		var ours []cgroup1.Subsystem
		for _, s := range subs {
			if slices.Contains(names, s.Name()) {
				ours = append(ours, s)
			}
		}
		return ours, err
	}
}

type v1Cgroup struct {
	pid  int
	cg   cgroup1.Cgroup // memory, pids
	rel  string
	grp  string
	dirs map[cgroup1.Name]string // the worker's cgroup and its group's, by controller
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

func newV1(base, group string, pid int, l limits) (cgroup, error) {
	rel := filepath.Join(base, workerCgroupName(pid))
	cg, err := cgroup1.New(v1Path(rel), v1Resources(l), cgroup1.WithHierarchy(v1Only(v1Worker)))
	if err != nil {
		return nil, err
	}
	c := &v1Cgroup{pid: pid, cg: cg, rel: rel, dirs: make(map[cgroup1.Name]string)}
	for _, n := range v1Worker {
		c.dirs[n] = filepath.Join(v1OwnDirs()[n], rel)
	}
	if err := cg.Add(cgroup1.Process{Pid: pid}); err != nil {
		cg.Delete()
		return nil, err
	}
	if err := c.join(base, group); err != nil {
		c.remove()
		return nil, err
	}
	return c, nil
}

// join puts the worker in its group's cpu cgroup, made if need be.
func (c *v1Cgroup) join(base, group string) error {
	shares := uint64(1024)
	g, err := cgroup1.New(v1Path(filepath.Join(base, group)), &specs.LinuxResources{CPU: &specs.LinuxCPU{Shares: &shares}}, cgroup1.WithHierarchy(v1Only(v1Group)))
	if err != nil {
		return err
	}
	if err := g.Add(cgroup1.Process{Pid: c.pid}); err != nil {
		return err
	}
	c.grp = group
	for _, n := range v1Group {
		c.dirs[n] = filepath.Join(v1OwnDirs()[n], base, group)
	}
	return nil
}

func (c *v1Cgroup) regroup(base, group string, l limits) error {
	res := v1Resources(l)
	if res.Memory.Swap != nil {
		// memory.memsw.limit_in_bytes may never be below
		// memory.limit_in_bytes: to raise both, raise it first.
		// (containerd/cgroups v3.1.3 means to, but swaps the wrong pair.)
		if err := c.cg.Update(&specs.LinuxResources{Memory: &specs.LinuxMemory{Swap: res.Memory.Swap}}); err != nil && !errors.Is(err, syscall.EINVAL) {
			return err
		}
	}
	if err := c.cg.Update(res); err != nil {
		return err
	}
	return c.join(base, group)
}

func (c *v1Cgroup) remove() error { return c.cg.Delete() }
func (c *v1Cgroup) path() string  { return c.rel }
func (c *v1Cgroup) group() string { return c.grp }

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
