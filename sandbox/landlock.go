package sandbox

import (
	"fmt"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// minLandlockABI is the Landlock ABI a worker needs: files (1), TCP
// bind/connect (4), and the signal scope (6), without which a worker, which
// runs as the host's user, could signal the host and its other workers.
const minLandlockABI = 6

// LandlockAvailable reports whether this kernel can confine workers; the
// error is one line that names the way out, for the host to print before
// refusing to start in process mode.
func LandlockAvailable() error {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return fmt.Errorf("process isolation needs Landlock, which this kernel does not offer (%v); run with --isolation inproc for trusted single-tenant use", err)
	}
	if v < minLandlockABI {
		return fmt.Errorf("process isolation needs Landlock ABI %d (Linux 6.12), this kernel has ABI %d; run with --isolation inproc for trusted single-tenant use", minLandlockABI, v)
	}
	return nil
}

// sessionAccess is what a worker may do in its writable trees (files/,
// tmp/): read, write, make and remove files, directories and symlinks, and
// move them within them. Not: execute a file, make devices, fifos or
// sockets.
const sessionAccess = ll.AccessFSReadFile | ll.AccessFSReadDir | ll.AccessFSWriteFile |
	ll.AccessFSTruncate | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSRefer

const readAccess = ll.AccessFSReadFile | ll.AccessFSReadDir

// confine restricts this process, all its threads, for good: in the
// session directory dir, read and write in files/ and tmp/, read only in
// classes/src/ and archives/, nothing else (so not session.json, the
// journal classes/repl/, the store's metadata, nor making, renaming or
// replacing anything beside them); outside it, the time zone database
// (read-only); no TCP bind or connect unless net; no signals to, and no
// abstract unix sockets of, processes outside this Landlock domain (the
// host, other workers). /proc is out of reach, so the host's and even the
// worker's own environment cannot be read. The directories must exist.
func confine(dir string, net bool) error {
	if err := LandlockAvailable(); err != nil {
		return err
	}
	cfg := landlock.V11.BestEffort()
	var rules []landlock.Rule
	for _, d := range writableDirs {
		rules = append(rules, landlock.PathAccess(sessionAccess, filepath.Join(dir, d)))
	}
	for _, d := range readableDirs {
		rules = append(rules, landlock.PathAccess(readAccess, filepath.Join(dir, d)))
	}
	// time.LoadLocation; the local zone is loaded before confine.
	rules = append(rules, landlock.PathAccess(readAccess, "/usr/share/zoneinfo").IgnoreIfMissing())
	if net {
		cfg.HandledAccessNet = 0
		// Name resolution and TLS roots, for the code that may dial.
		rules = append(rules,
			landlock.PathAccess(ll.AccessFSReadFile, "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf").IgnoreIfMissing(),
			landlock.PathAccess(readAccess, "/etc/ssl", "/etc/pki", "/usr/share/ca-certificates").IgnoreIfMissing(),
		)
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// netPackages are the standard packages that open network connections:
// allowing any of them (--allow-pkg) lets the worker's TCP through Landlock.
var netPackages = []string{"net", "net/http", "net/rpc", "net/smtp", "crypto/tls", "log/syslog"}

func netAllowed(a Allowlist) bool {
	for _, p := range netPackages {
		if a.Allowed(p) {
			return true
		}
	}
	return false
}
