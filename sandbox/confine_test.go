package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// testUsers are the worker uids of the tests: a range of their own, far
// from the host's default ones.
var testUsers = func() *WorkerUsers {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := NewWorkerRange(0x60000000, 1<<16)
	if err != nil {
		panic(err)
	}
	return u
}()

// testDisk is the disk quota of the tests' sessions: small, so that a cell
// passes it fast.
const testDisk = 32 << 20

func needRoot(tb testing.TB) {
	tb.Helper()
	if testUsers == nil {
		tb.Skip("workers switch uid only when the host runs as root")
	}
}

// ownCgroupsLeft lists what is left of this process's cgroup tree.
func ownCgroupsLeft() []string {
	var left []string
	for _, own := range ownCgroupDirs() {
		p := filepath.Join(own, hostCgroups.base)
		if _, err := os.Stat(p); err == nil {
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				left = append(left, filepath.Join(p, e.Name()))
			}
			if len(entries) == 0 {
				left = append(left, p)
			}
		}
	}
	return left
}

// cgroupDir is the directory of w's cgroup in a v1 controller.
func cgroupDir(tb testing.TB, w *Worker, controller string) string {
	tb.Helper()
	cg, ok := w.mem.cgroup().(*v1Cgroup)
	if !ok {
		tb.Skipf("worker not in a cgroup v1 (%T)", w.mem.cgroup())
	}
	for n, d := range cg.dirs {
		if string(n) == controller {
			return d
		}
	}
	tb.Fatalf("no %s controller in %v", controller, cg.dirs)
	return ""
}

func TestWorkerCgroupLimits(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	w, _ := startWorker(t, "", WorkerOptions{Group: "alice", MaxThreads: 64})
	mustEval(t, w, "1", false)
	for _, c := range []struct{ controller, file, want, under string }{
		{"pids", "pids.max", "64", workerCgroupName(w.PID())},
		{"memory", "memory.limit_in_bytes", strconv.Itoa(testMemory), workerCgroupName(w.PID())},
		{"cpu", "cpu.shares", "1024", workerCgroupName(w.PID())},
	} {
		dir := cgroupDir(t, w, c.controller)
		if want := filepath.Join(hostCgroups.base, c.under); !strings.HasSuffix(dir, "/"+want) {
			t.Errorf("%s cgroup %s; want .../%s", c.controller, dir, want)
		}
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if got := strings.TrimSpace(string(b)); err != nil || got != c.want {
			t.Errorf("%s = %q, %v; want %s", c.file, got, err, c.want)
		}
		procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if strings.TrimSpace(string(procs)) != strconv.Itoa(w.PID()) {
			t.Errorf("%s cgroup.procs = %q; want the worker %d alone", c.controller, procs, w.PID())
		}
	}
	w.Close()
	if left := ownCgroupsLeft(); len(left) > 0 {
		t.Errorf("cgroups left after Close: %v", left)
	}
}

func TestIdlePoolWorkerInCgroup(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	w, err := spawnWorker(context.Background(), "", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := cgroupDir(t, w, "pids")
	if want := filepath.Join(hostCgroups.base, workerCgroupName(w.PID())); !strings.HasSuffix(dir, want) {
		t.Errorf("idle worker's pids cgroup %s; want .../%s", dir, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pids.max")); strings.TrimSpace(string(b)) != strconv.Itoa(DefaultMaxThreads) {
		t.Errorf("idle pids.max = %q; want %d", b, DefaultMaxThreads)
	}
}

// The CPU is shared per user first: the workers of one user split one
// user's cpu.shares, whatever their count.
func TestCPUSharesSplitPerUser(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	root := t.TempDir()
	shares := func(w *Worker) string {
		b, _ := os.ReadFile(filepath.Join(cgroupDir(t, w, "cpu"), "cpu.shares"))
		return strings.TrimSpace(string(b))
	}
	a1, _ := startWorker(t, root, WorkerOptions{Group: "ann"})
	a2, _ := startWorker(t, root, WorkerOptions{Group: "ann"})
	a3, _ := startWorker(t, root, WorkerOptions{Group: "ann"})
	b1, _ := startWorker(t, root, WorkerOptions{Group: "ben"})
	for _, w := range []*Worker{a1, a2, a3} {
		if got := shares(w); got != "341" {
			t.Errorf("one of ann's 3 workers has cpu.shares %s; want 341", got)
		}
	}
	if got := shares(b1); got != "1024" {
		t.Errorf("ben's only worker has cpu.shares %s; want 1024", got)
	}
	a3.Close()
	if got := shares(a1); got != "512" {
		t.Errorf("one of ann's 2 workers has cpu.shares %s after one closed; want 512", got)
	}
}

func TestWorkerRlimits(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{Disk: testDisk})
	mustEval(t, w, "1", false)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", w.PID()))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("Max open files            %-20d %-20d", maxOpenFiles, maxOpenFiles),
		fmt.Sprintf("Max file size             %-20d %-20d", testDisk, testDisk),
		"Max core file size        0                    0",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("limits lack %q:\n%s", want, b)
		}
	}
}

// A worker runs as its session's uid, with no groups, no capabilities and
// no_new_privs on every thread.
func TestWorkerRunsAsSessionUser(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	w, _ := startWorker(t, root, WorkerOptions{Users: testUsers})
	w2, _ := startWorker(t, root, WorkerOptions{Users: testUsers})
	mustEval(t, w, "1", false)
	mustEval(t, w2, "1", false)
	ids, err := SessionIDs(w.dir(t))
	if err != nil {
		t.Fatal(err)
	}
	ids2, _ := SessionIDs(w2.dir(t))
	if !testUsers.inRange(ids.UID) || ids.GID != ids.UID || ids2 == ids {
		t.Fatalf("sessions' ids %v and %v; want two different ones from the test range", ids, ids2)
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", w.PID()))
	if len(tasks) == 0 {
		t.Fatal("no threads")
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(filepath.Base(task))
		b, err := os.ReadFile(filepath.Join(task, "status"))
		if err != nil {
			continue // the thread ended
		}
		st := string(b)
		u := strconv.Itoa(ids.UID)
		for _, want := range []string{
			"Uid:\t" + u + "\t" + u + "\t" + u + "\t" + u,
			"Gid:\t" + u + "\t" + u + "\t" + u + "\t" + u,
			"Groups:\t \n", "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "NoNewPrivs:\t1",
		} {
			if !strings.Contains(st, want) {
				t.Errorf("thread %d: status lacks %q", tid, want)
			}
		}
	}
	// The same uid again after a restart of the worker (the allocation
	// reads the owner of files/).
	dir := w.dir(t)
	w.Close()
	fresh, _ := NewWorkerRange(testUsers.first, testUsers.count)
	got, err := fresh.ids(dir)
	if err != nil || got != ids {
		t.Errorf("ids after restart = %v, %v; want %v", got, err, ids)
	}
}

// dir is the worker's session directory, from its working directory.
func (w *Worker) dir(tb testing.TB) string {
	tb.Helper()
	files, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", w.PID()))
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Dir(files)
}

// The host's records in a session directory are root-owned and out of the
// worker's reach by file permissions too; files/ and tmp/ are the worker's.
func TestSessionDirOwnership(t *testing.T) {
	needRoot(t)
	w, _ := startWorker(t, "", WorkerOptions{Users: testUsers})
	mustEval(t, w, "1", false)
	dir := w.dir(t)
	ids, _ := SessionIDs(dir)
	for _, c := range []struct {
		path string
		want IDs
		mode os.FileMode
	}{
		{".", IDs{0, ids.GID}, 0o750},
		{"classes", IDs{0, ids.GID}, 0o750},
		{"classes/src", IDs{0, ids.GID}, 0o750},
		{"archives", IDs{0, ids.GID}, 0o750},
		{"files", ids, 0o700},
		{"tmp", ids, 0o700},
	} {
		fi, err := os.Lstat(filepath.Join(dir, c.path))
		if err != nil {
			t.Fatal(err)
		}
		if got := statIDs(fi); got != c.want || fi.Mode().Perm() != c.mode {
			t.Errorf("%s: owner %v mode %v; want %v %v", c.path, got, fi.Mode().Perm(), c.want, c.mode)
		}
	}
}

// chmod 4755 in a cell makes no set-uid-root file: the file is the
// session's uid's, and the kernel refuses a chown to root.
func TestSetuidFileNotRoot(t *testing.T) {
	needRoot(t)
	w, out := startWorker(t, "", WorkerOptions{Users: testUsers})
	mustEval(t, w, `import "os"`, false)
	mustEval(t, w, `os.WriteFile("suid", []byte("#!/bin/sh\n"), 0o755)`, false)
	mustEval(t, w, `os.Chmod("suid", 0o4755)`, false)
	mustEval(t, w, `os.Chown("suid", 0, 0)`, true)
	if got := out.String(); !strings.Contains(got, "operation not permitted") {
		t.Errorf("chown to root shows %q; want operation not permitted", got)
	}
	fi, err := os.Lstat(filepath.Join(w.dir(t), "files", "suid"))
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if fi.Mode()&os.ModeSetuid != 0 && st.Uid == 0 {
		t.Errorf("a set-uid root file: %v uid %d", fi.Mode(), st.Uid)
	}
	if st.Uid == 0 {
		t.Errorf("file made by the cell is root's")
	}
}

// Over its quota, a session's worker is stopped with QuotaExceeded. A
// single file stops at the quota with "file too large" (RLIMIT_FSIZE), and
// the watcher may stop the worker too for it, since the session then holds
// the quota and a little more.
func TestDiskQuota(t *testing.T) {
	opts := WorkerOptions{Disk: testDisk, Users: testUsers}
	w, out := startWorker(t, "", opts)
	opts.Dir = w.dir(t)
	restart := func() (*Worker, *syncBuffer) {
		t.Helper()
		out := &syncBuffer{}
		opts.Stdout, opts.Stderr = out, out
		w, err := StartWorker(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		mustEval(t, w, `import "os"`, false)
		return w, out
	}
	mustEval(t, w, `import "os"`, false)
	err := w.Eval(context.Background(), `os.WriteFile("big", make([]byte, 40<<20), 0o644)`, true)
	var crash *CrashError
	switch {
	case err == nil && strings.Contains(out.String(), "file too large"):
	case errors.As(err, &crash) && crash.Reason == QuotaExceeded:
		w, _ = restart()
	default:
		t.Errorf("one file past the quota: %v, %q; want file too large or %q", err, out.String(), QuotaExceeded)
	}
	// The session holds the quota and a little more: the watcher may stop
	// the worker before the remove too (a loaded machine is slow to get
	// there).
	if err := w.Eval(context.Background(), `os.Remove("big")`, false); err != nil {
		if !errors.As(err, &crash) || crash.Reason != QuotaExceeded {
			t.Fatalf("remove the big file: %v", err)
		}
		w, _ = restart()
		mustEval(t, w, `os.Remove("big")`, false)
	}
	// Twice the quota in 1 MiB files, then a spin until the watcher acts: an
	// endless write loop would race the watcher with the memory cap (the page
	// cache counts in the memory cgroup), and a quiet machine writes fast.
	err = w.Eval(context.Background(), `for i := 0; i < 2*(`+strconv.Itoa(int(testDisk>>20))+`); i++ { os.WriteFile("f"+string(rune('a'+i%26))+string(rune('a'+i/26%26)), make([]byte, 1<<20), 0o644) }; for {}`, false)
	if !errors.As(err, &crash) || crash.Reason != QuotaExceeded {
		t.Fatalf("filling the quota: %v; want a crash %q", err, QuotaExceeded)
	}
	// A new worker of the session, over its quota, runs: it may delete.
	w, out = restart()
	mustEval(t, w, `os.Remove("faa")`, true)
	if got := out.String(); got != "<nil>\n" {
		t.Errorf("remove over quota: %q", got)
	}
}

// Workers never run as root or as nobody (65534), which this machine's
// ext4 lets use the blocks reserved for root (resuid=65534): a full disk
// would then take the host's own room too.
func TestWorkerUserRefusesReservedIDs(t *testing.T) {
	for _, c := range []struct{ first, count int }{{65000, 1000}, {0, 10}, {65534, 1}} {
		if _, err := NewWorkerRange(c.first, c.count); err == nil {
			t.Errorf("NewWorkerRange(%d, %d) accepted", c.first, c.count)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the rest needs root")
	}
	for _, spec := range []string{"nobody", "65534", "0", "root", "65000-66000"} {
		if _, err := ParseWorkerUser(spec, t.TempDir()); err == nil {
			t.Errorf("--worker-user %s accepted", spec)
		}
	}
	u, err := ParseWorkerUser("", "/srv/replhost")
	if err != nil || u.count != autoCount || u.first < autoFirst || u.first+u.count-1 > 1<<31-1 {
		t.Errorf("default range %v, %v", u, err)
	}
}

// A session's memory cap above the pool's (DefaultMemory) is applied too:
// memory+swap must be raised before memory.
func TestWorkerMemoryRaisedFromPool(t *testing.T) {
	if err := cgroupsAvailable(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	w, _ := startWorker(t, "", WorkerOptions{Memory: 2 * DefaultMemory})
	for _, f := range []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"} {
		b, err := os.ReadFile(filepath.Join(cgroupDir(t, w, "memory"), f))
		if errors.Is(err, os.ErrNotExist) {
			continue // no swap accounting
		}
		if got := strings.TrimSpace(string(b)); err != nil || got != strconv.Itoa(2*DefaultMemory) {
			t.Errorf("%s = %q, %v; want %d", f, got, err, 2*DefaultMemory)
		}
	}
}

// A link where a session's directory should be (left by a worker of an
// older host, which could write there) is refused, and its target is not
// touched.
func TestSessionDirLinkRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.Chmod(outside, 0o700)
	for _, d := range []string{"classes", "files", "archives"} {
		t.Run(d, func(t *testing.T) {
			dir := filepath.Join(root, d+"-link")
			os.MkdirAll(dir, 0o755)
			if err := os.Symlink(outside, filepath.Join(dir, d)); err != nil {
				t.Fatal(err)
			}
			_, err := StartWorker(context.Background(), WorkerOptions{Dir: dir, Users: testUsers, Memory: testMemory})
			if err == nil {
				t.Fatal("worker started")
			}
			fi, _ := os.Stat(outside)
			if entries, _ := os.ReadDir(outside); len(entries) != 0 || fi.Mode().Perm() != 0o700 || statIDs(fi).UID != 0 {
				t.Errorf("the link's target changed: %v %v %v", entries, fi.Mode(), statIDs(fi))
			}
		})
	}
}

// The GOPATH stays classes/: a package uploaded to classes/src/P (root's
// files) is importable with read access only, and the code cannot change it.
func TestUploadedPackageReadOnly(t *testing.T) {
	root := t.TempDir()
	dir := sessionDir(t, root)
	pkg := filepath.Join(dir, "classes", "src", "greet")
	os.MkdirAll(pkg, 0o755)
	if err := os.WriteFile(filepath.Join(pkg, "greet.go"), []byte("package greet\n\nfunc Hi(n string) string { return \"hi \" + n }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, out := startWorker(t, root, WorkerOptions{Dir: dir, Users: testUsers})
	mustEval(t, w, `import "greet"`, false)
	mustEval(t, w, `greet.Hi("bob")`, true)
	mustEval(t, w, `import "os"`, false)
	mustEval(t, w, `os.WriteFile("../classes/src/greet/greet.go", nil, 0o644)`, true)
	if got := out.String(); !strings.HasPrefix(got, "\"hi bob\"\n") || !strings.Contains(got, "permission denied") {
		t.Errorf("output %q; want \"hi bob\" then permission denied", got)
	}
	if b, _ := os.ReadFile(filepath.Join(pkg, "greet.go")); len(b) == 0 {
		t.Error("the package was emptied")
	}
}
