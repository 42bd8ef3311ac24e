package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxOpenFiles is a worker's RLIMIT_NOFILE: plenty for a session, and a
// bound on what one session holds of the kernel's file table.
const maxOpenFiles = 1024

// confineWorker applies the session of m to this worker process, for
// good, before any of the session's code runs, and returns the session
// directory and working directory for its interpreter, relative to the
// new working directory ("..", "."). In order:
//
//  1. rlimits: open files, file size (the disk quota: a write past it
//     fails with EFBIG; Go ignores SIGXFSZ), no core dumps;
//  2. the working directory files/, entered while still root, so that the
//     worker needs no search permission on the host's directories above
//     the session: it names its session relative to files/ from here on;
//  3. Landlock (confine), with no_new_privs, which go-landlock sets on
//     every thread: no set-uid binary or file capability can raise it;
//  4. when the host says so, the session's uid and gid, no supplementary
//     groups, on every thread (Go's syscall.Setresuid), which clears every
//     capability; the kernel then also clears the parent-death signal,
//     which is set again.
func confineWorker(m initMsg) (sessionDir, workDir string, err error) {
	// Load what the standard library reads lazily from outside the
	// session directory, while it can still be read.
	_ = time.Local.String()
	rl := map[int]uint64{unix.RLIMIT_NOFILE: maxOpenFiles, unix.RLIMIT_CORE: 0}
	if m.Disk > 0 {
		rl[unix.RLIMIT_FSIZE] = uint64(m.Disk)
	}
	for res, v := range rl {
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return "", "", fmt.Errorf("setrlimit %d: %w", res, err)
		}
	}
	if err := os.Chdir(filepath.Join(m.Dir, "files")); err != nil {
		return "", "", err
	}
	if err := confine(m.Dir, m.Net); err != nil {
		return "", "", err
	}
	if m.UID != 0 {
		if err := becomeUser(m.UID, m.GID); err != nil {
			return "", "", err
		}
	}
	// os.TempDir is /tmp, which Landlock refuses: the session's own tmp/,
	// removed with the session.
	os.Setenv("TMPDIR", filepath.Join("..", "tmp"))
	return "..", ".", nil
}

func becomeUser(uid, gid int) error {
	ppid := os.Getppid()
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid %d: %w", uid, err)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("parent-death signal: %w", err)
	}
	if os.Getppid() != ppid {
		os.Exit(0) // the host died while the signal was unset
	}
	return nil
}
