package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// lockRoot takes an exclusive flock on ROOT/lock for as long as the host
// runs, and writes its pid there: two hosts on one root would diverge on
// sessions, overwrite journal cells and rewrite known_hosts. The kernel
// drops the lock when the process ends, however it ends.
func lockRoot(root string) (unlock func(), err error) {
	path := filepath.Join(root, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock root: %w", err)
	}
	if err := flockSoon(f); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("root %s is in use by pid %s", root, lockHolder(f))
		}
		return nil, fmt.Errorf("lock root: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// lockWait bounds how long a start waits for a lock that is held. A host
// SIGKILLed while it forked a worker leaves that child holding a copy of
// the lock's descriptor until it execs (a few milliseconds): a restart
// right after a crash (systemd's, a test's) must not fail on it.
const lockWait = 2 * time.Second

// flockSoon takes f's exclusive lock, trying again for up to lockWait
// while another process holds it.
func flockSoon(f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockHolder is the pid the holder wrote, or "unknown".
func lockHolder(f *os.File) string {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(string(bytes.TrimSpace(buf[:n])))
	if err != nil || pid <= 0 {
		return "unknown"
	}
	return strconv.Itoa(pid)
}
