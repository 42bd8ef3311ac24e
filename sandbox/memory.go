package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultMemory is a worker's memory cap when WorkerOptions.Memory is 0.
const DefaultMemory = 512 << 20

// rssPoll is how often the host looks at a worker's RSS when no cgroup
// holds it.
const rssPoll = 100 * time.Millisecond

// memLimit enforces a worker's memory cap from the host: a memory cgroup of
// its own (cgroup v1), where the kernel kills the worker at the cap, or
// else a goroutine that reads the worker's RSS and kills it over the cap.
// Inside, the worker also sets debug.SetMemoryLimit a little below the cap
// so that the collector works hard before the kill. RLIMIT_AS is not used:
// the Go runtime reserves far more address space than it uses.
type memLimit struct {
	limit int64
	dir   string // the worker's cgroup; "" when watching RSS

	stop    chan struct{} // closed by release: ends the watcher
	watched chan struct{} // closed when the watcher has ended
	once    sync.Once
}

// limitMemory puts process pid under a memory cap of limit bytes. name
// names its cgroup; kill ends the process with a reason, for the watcher.
func limitMemory(pid int, name string, limit int64, cgroups bool, kill func(reason string)) *memLimit {
	m := &memLimit{limit: limit, stop: make(chan struct{}), watched: make(chan struct{})}
	if cgroups {
		if dir, err := joinCgroup(pid, name, limit); err == nil {
			m.dir = dir
			close(m.watched)
			return m
		}
	}
	go m.watch(pid, kill)
	return m
}

func (m *memLimit) watch(pid int, kill func(string)) {
	defer close(m.watched)
	t := time.NewTicker(rssPoll)
	defer t.Stop()
	statm := fmt.Sprintf("/proc/%d/statm", pid)
	page := int64(os.Getpagesize())
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		b, err := os.ReadFile(statm)
		if err != nil {
			return // the process is gone
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			continue
		}
		pages, _ := strconv.ParseInt(fields[1], 10, 64)
		if pages*page > m.limit {
			kill(capReason(m.limit))
			return
		}
	}
}

func capReason(limit int64) string { return "killed at memory cap " + formatBytes(limit) }

// oomKilled reports whether the kernel killed a process of the cgroup at
// its cap.
func (m *memLimit) oomKilled() bool {
	if m.dir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(m.dir, "memory.oom_control"))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "oom_kill "); ok {
			count, _ := strconv.Atoi(n)
			return count > 0
		}
	}
	return false
}

// release ends the watcher or removes the cgroup; call it once the
// process has been waited for. It is safe to call twice.
func (m *memLimit) release() {
	m.once.Do(func() {
		close(m.stop)
		<-m.watched
		if m.dir == "" {
			return
		}
		// The kernel may take a moment to empty the cgroup of a process
		// just reaped.
		for i := 0; i < 50; i++ {
			err := os.Remove(m.dir)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		// The shared parent goes when its last worker goes, so that the
		// host leaves its own cgroup as it found it.
		os.Remove(filepath.Dir(m.dir))
	})
}

// joinCgroup makes the cgroup <host's memory cgroup>/replhost/<name> with
// the cap and moves pid into it. Nested under the host's own cgroup, the
// workers also stay within whatever cap the host itself runs under.
func joinCgroup(pid int, name string, limit int64) (string, error) {
	base, err := memoryCgroupDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "replhost", name)
	// The parent may vanish between the two calls when another worker's
	// release removes it: try again once.
	for i := 0; ; i++ {
		os.Mkdir(filepath.Dir(dir), 0o755)
		err = os.Mkdir(dir, 0o755)
		if err == nil || i == 1 || !errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("make cgroup: %w", err)
	}
	write := func(file, value string) error {
		return os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644)
	}
	limitText := strconv.FormatInt(limit, 10)
	if err := write("memory.limit_in_bytes", limitText); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("set cgroup memory limit: %w", err)
	}
	write("memory.memsw.limit_in_bytes", limitText) // absent without swap accounting
	if err := write("cgroup.procs", strconv.Itoa(pid)); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("move worker into cgroup: %w", err)
	}
	return dir, nil
}

var memoryCgroup struct {
	once sync.Once
	dir  string
	err  error
}

// memoryCgroupDir returns the directory of this process's cgroup v1 memory
// cgroup, from /proc/self/cgroup and the cgroup mount in /proc/self/mountinfo.
func memoryCgroupDir() (string, error) {
	mc := &memoryCgroup
	mc.once.Do(func() {
		mc.dir, mc.err = findMemoryCgroup()
		if mc.err == nil {
			if err := syscall.Access(mc.dir, 2 /* W_OK */); err != nil {
				mc.err = fmt.Errorf("memory cgroup %s: %w", mc.dir, err)
			}
		}
		if mc.err == nil {
			sweepCgroups(filepath.Join(mc.dir, "replhost"))
		}
	})
	return mc.dir, mc.err
}

// sweepCgroups removes the cgroups of workers that are gone, left by a
// host that was killed. A cgroup is named <session>-<pid>: one whose pid
// still runs is not touched (a cgroup with a process cannot be removed
// anyway, and a new one is made before its process joins).
func sweepCgroups(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		i := strings.LastIndexByte(e.Name(), '-')
		pid, err := strconv.Atoi(e.Name()[i+1:])
		if !e.IsDir() || i < 0 || err != nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
			os.Remove(filepath.Join(parent, e.Name()))
		}
	}
	os.Remove(parent) // only if empty
}

func findMemoryCgroup() (string, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	path := ""
	for _, line := range strings.Split(string(own), "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && hasWord(parts[1], "memory", ",") {
			path = parts[2]
		}
	}
	if path == "" {
		return "", errors.New("no cgroup v1 memory controller")
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		// id parent major:minor root mount-point options ... - fstype source super-options
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || g[0] != "cgroup" || !hasWord(g[2], "memory", ",") {
			continue
		}
		root, mountPoint := f[3], f[4]
		rel, err := filepath.Rel(root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		return filepath.Join(mountPoint, rel), nil
	}
	return "", errors.New("no cgroup v1 memory mount")
}

func hasWord(list, word, sep string) bool {
	for _, w := range strings.Split(list, sep) {
		if w == word {
			return true
		}
	}
	return false
}
