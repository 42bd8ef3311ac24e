package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/cgroups/v3/cgroup2"
)

// This machine is cgroup v1: the v2 path is covered here by what runs
// without a unified hierarchy: the files a worker's limits become (written
// by containerd/cgroups into a directory standing in for the mount) and
// the reading of the kernel's flat-keyed files.
func TestV2ResourcesFiles(t *testing.T) {
	mount := t.TempDir()
	group := "/system.slice/replhost.service/replhost-1/u-alice/w-2"
	// The kernel gives every cgroup directory its control files.
	for d := filepath.Dir(group); d != "/"; d = filepath.Dir(d) {
		os.MkdirAll(filepath.Join(mount, d), 0o755)
		os.WriteFile(filepath.Join(mount, d, "cgroup.subtree_control"), nil, 0o644)
	}
	os.WriteFile(filepath.Join(mount, "cgroup.subtree_control"), nil, 0o644)
	for _, swap := range []bool{true, false} {
		if _, err := cgroup2.NewManager(mount, group, v2Resources(limits{memory: 256 << 20, threads: 64}, swap)); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(mount, group)
		want := map[string]string{"memory.max": "268435456", "pids.max": "64", "cpu.weight": "100"}
		if swap {
			want["memory.swap.max"] = "0"
		}
		for f, v := range want {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if got := strings.TrimSpace(string(b)); err != nil || got != v {
				t.Errorf("swap %v: %s = %q, %v; want %s", swap, f, got, err, v)
			}
		}
		os.Remove(filepath.Join(dir, "memory.swap.max"))
	}
	// Every ancestor below the mount delegates the controllers to its children.
	b, err := os.ReadFile(filepath.Join(mount, "system.slice", "replhost.service", "replhost-1", "cgroup.subtree_control"))
	if err != nil || !strings.Contains(string(b), "memory") || !strings.Contains(string(b), "pids") {
		t.Errorf("subtree_control = %q, %v; want memory and pids enabled", b, err)
	}
}

func TestFlatKeyed(t *testing.T) {
	for _, c := range []struct {
		file, key string
		want      uint64
		ok        bool
	}{
		{"low 0\nhigh 3\nmax 0\noom 2\noom_kill 1\noom_group_kill 0\n", "oom_kill", 1, true}, // v2 memory.events
		{"max 17\n", "max", 17, true},                                          // pids.events
		{"oom_kill_disable 0\nunder_oom 0\noom_kill 0\n", "oom_kill", 0, true}, // v1 memory.oom_control
		{"usage_usec 5\n", "oom_kill", 0, false},
	} {
		got, err := parseFlatKeyed([]byte(c.file), c.key)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("parseFlatKeyed(%q, %q) = %d, %v; want %d, ok %v", c.file, c.key, got, err, c.want, c.ok)
		}
	}
}
