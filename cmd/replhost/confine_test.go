package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// A session's code cannot reach the host's records in its session
// directory, make a set-uid-root file, take all threads or the disk; after
// each attack a canary session of another user still counts on and
// journals, and `new` works. Through the real binary, its workers as
// their own uids (the host runs as root here).
func TestConfinedSessionAttacks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("workers switch uid only when the host runs as root")
	}
	root := filepath.Join(t.TempDir(), "root")
	h := startHostProc(t, root, "--disk", "16MiB", "--max-threads", "64")
	attacker := dialHost(t, h)
	hostPEM, err := os.ReadFile(filepath.Join(root, hostKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	hostKey, err := gossh.ParsePrivateKey(hostPEM)
	if err != nil {
		t.Fatal(err)
	}
	key := testhost.AddUser(t, root, "canary")
	canary := testhost.NewJournalCanary(t, testhost.DialKey(t, h.Addr, "canary", key, hostKey.PublicKey()))
	id := testhost.NewSession(t, attacker)
	if r := testhost.EvalIn(t, attacker, id, `import "os"`); r.Status != 0 {
		t.Fatalf("import: %+v", r)
	}
	for _, c := range []struct {
		name, code, stderr string
	}{
		{"rename-journal", `err := os.Rename("../classes/repl", "../classes/repl-x"); if err != nil { panic(err) }`, "permission denied"},
		{"symlink-journal", `err := os.Symlink("` + filepath.Join(root, canary.ID, "classes", "repl") + `", "../classes/repl2"); if err != nil { panic(err) }`, "permission denied"},
		{"write-session-json", `err := os.WriteFile("../session.json", []byte("{}"), 0o644); if err != nil { panic(err) }`, "permission denied"},
		{"chmod-session-dir", `err := os.Chmod("..", 0o777); if err != nil { panic(err) }`, "operation not permitted"},
		{"chmod-4755", `os.WriteFile("suid", []byte("x"), 0o755); err := os.Chmod("suid", 0o4755); if err != nil { panic(err) }; err = os.Chown("suid", 0, 0); if err != nil { panic(err) }`, "operation not permitted"},
		{"thread-bomb", `import ("runtime"; "time"); for i := 0; i < 4005; i++ { go func() { runtime.LockOSThread(); time.Sleep(time.Hour) }() }; time.Sleep(time.Hour)`, "stopped at thread cap 64"},
		{"fill-disk", `import "fmt"; for i := 0; i < 64; i++ { os.WriteFile(fmt.Sprintf("fill-%d", i), make([]byte, 1<<20), 0o644) }; for {}`, "disk quota exceeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := testhost.EvalIn(t, attacker, id, c.code)
			if r.Status == 0 || !strings.Contains(r.Stderr, c.stderr) {
				t.Errorf("%+v; want a failure saying %q", r, c.stderr)
			}
			canary.Beat(t)
			testhost.NewSession(t, attacker)
		})
	}
	for _, p := range []string{"session.json", "classes/repl"} {
		if fi, err := os.Lstat(filepath.Join(root, id, p)); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s of the attacker's session: %v, %v", p, fi, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(root, id, "files", "suid")); err == nil {
		if st := fi.Sys().(*syscall.Stat_t); st.Uid == 0 {
			t.Errorf("files/suid is root's: %v", fi.Mode())
		}
	}
}
