package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
)

// Artifacts as a new user moves them with stock OpenSSH tools (ssh, scp,
// sftp -b) into the real replhost binary.

// opensshUser runs OpenSSH's ssh, scp and sftp as one user of a host
// process, from a local working folder of its own.
type opensshUser struct {
	opts []string // -i KEY and -o options, common to ssh, scp and sftp
	port string
	dest string // user@host
	dir  string // local working folder
}

// newOpenSSHUser derives the arguments of the three tools from the ssh
// command the host printed for its first user.
func newOpenSSHUser(tb testing.TB, h *hostProc) *opensshUser {
	tb.Helper()
	u := &opensshUser{dir: tb.TempDir()}
	args := h.sshArgs(tb)
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-p" && i+1 < len(args):
			u.port = args[i+1]
			i++
		case (a == "-i" || a == "-o") && i+1 < len(args):
			u.opts = append(u.opts, a, args[i+1])
			i++
		case !strings.HasPrefix(a, "-"):
			u.dest = a
		default:
			tb.Fatalf("unexpected ssh argument %q in %q", a, args)
		}
	}
	if u.port == "" || u.dest == "" {
		tb.Fatalf("no port or destination in %q", args)
	}
	return u
}

// as is the same client logged in as another user with another key.
func (u *opensshUser) as(name, key string) *opensshUser {
	v := *u
	v.opts = nil
	for i := 0; i < len(u.opts); i += 2 {
		if u.opts[i] == "-i" {
			v.opts = append(v.opts, "-i", key)
		} else {
			v.opts = append(v.opts, u.opts[i], u.opts[i+1])
		}
	}
	v.dest = name + u.dest[strings.Index(u.dest, "@"):]
	return &v
}

// result is what a client printed and its exit status.
type result struct {
	out, err string
	code     int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d, stdout %q, stderr %q", r.code, r.out, r.err)
}

// run runs a client to its end (at most a minute) in the working folder.
func (u *opensshUser) run(tb testing.TB, stdin io.Reader, name string, args ...string) result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Stdin = u.dir, stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{out: out.String(), err: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return r
}

func (u *opensshUser) ssh(tb testing.TB, stdin string, command ...string) result {
	tb.Helper()
	args := append(append(slicesClone(u.opts), "-p", u.port, u.dest), command...)
	return u.run(tb, strings.NewReader(stdin), "ssh", args...)
}

// scp copies; a remote path is written ":/PATH".
func (u *opensshUser) scp(tb testing.TB, args ...string) result {
	tb.Helper()
	all := append(slicesClone(u.opts), "-P", u.port)
	for _, a := range args {
		if strings.HasPrefix(a, ":") {
			a = u.dest + a
		}
		all = append(all, a)
	}
	return u.run(tb, nil, "scp", all...)
}

// sftp runs batch with sftp -b (a failing line ends it, exit 1, unless it
// starts with '-').
func (u *opensshUser) sftp(tb testing.TB, batch string) result {
	tb.Helper()
	f := filepath.Join(tb.TempDir(), "batch")
	if err := os.WriteFile(f, []byte(batch), 0o644); err != nil {
		tb.Fatal(err)
	}
	args := append(slicesClone(u.opts), "-P", u.port, "-b", f, u.dest)
	return u.run(tb, nil, "sftp", args...)
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// write puts local files (slash names, folders made) in the working folder.
func (u *opensshUser) write(tb testing.TB, files map[string]string) {
	tb.Helper()
	for name, body := range files {
		p := filepath.Join(u.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// newSession creates a session with `ssh HOST new` and returns its uuid.
func (u *opensshUser) newSession(tb testing.TB) string {
	tb.Helper()
	r := u.ssh(tb, "", "new")
	id := strings.TrimSpace(r.out)
	if r.code != 0 || len(id) != 36 {
		tb.Fatalf("ssh new: %v", r)
	}
	return id
}

func needOpenSSH(tb testing.TB) {
	tb.Helper()
	for _, tool := range []string{"ssh", "scp", "sftp", "ssh-keygen"} {
		needTool(tb, tool)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// A package, a file and an archive go up with scp and sftp -b, are listed
// and come back down; the session imports the package, reads the file and
// the unpacked archive; `ssh HOST artifacts add < FILE` works alongside.
func TestOpenSSHArtifactsRoundTrip(t *testing.T) {
	needOpenSSH(t)
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	u := newOpenSSHUser(t, h)
	id := u.newSession(t)
	u.write(t, map[string]string{
		"greet/greet.go":  testhost.GreetPackage("hello"),
		"shout/shout.go":  "package shout\n\nimport \"strings\"\n\nfunc Up(s string) string { return strings.ToUpper(s) + \"!\" }\n",
		"data.txt":        "1,2,3\n",
		"notes.txt":       "notes\n",
		"set.tar.gz":      testhost.TarGz(t, map[string]string{"in/a.txt": "a from the archive"}),
		"x.txt":           "x by artifacts add\n",
		"other/greet.go":  testhost.GreetPackage("again"),
		"other/extra.txt": "extra",
	})

	// scp: one file under its full name, one into a folder, a package folder.
	for _, args := range [][]string{
		{"greet/greet.go", ":/" + id + "/classes/src/greet/greet.go"},
		{"data.txt", ":/" + id + "/files/"},
		{"-r", "shout", ":/" + id + "/classes/src/"},
	} {
		if r := u.scp(t, args...); r.code != 0 || r.err != "" {
			t.Errorf("scp %q: %v; want exit 0, quiet", args, r)
		}
	}
	// sftp -b: an archive (unpacked), a file, listings, downloads.
	r := u.sftp(t, strings.Join([]string{
		"cd /" + id,
		"put set.tar.gz archives/",
		"put notes.txt files/notes.txt",
		"ls -1 files",
		"ls -1 files/set.tar.gz/in",
		"ls -1 classes/src",
		"get files/data.txt data.back",
		"get files/set.tar.gz/in/a.txt a.back",
		"get classes/src/greet/greet.go greet.back",
	}, "\n")+"\n")
	if r.code != 0 {
		t.Fatalf("sftp -b: %v\nhost log:\n%s", r, h.Log())
	}
	for _, want := range []string{
		"files/data.txt\nfiles/notes.txt\nfiles/set.tar.gz\n",
		"files/set.tar.gz/in/a.txt\n",
		"classes/src/greet\nclasses/src/shout\n",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("sftp listing %q; want it to hold %q", r.out, want)
		}
	}
	for name, want := range map[string]string{
		"data.back": "1,2,3\n", "a.back": "a from the archive", "greet.back": testhost.GreetPackage("hello"),
	} {
		if got, err := os.ReadFile(filepath.Join(u.dir, name)); err != nil || string(got) != want {
			t.Errorf("downloaded %s: %q, %v; want %q", name, got, err, want)
		}
	}

	// ssh HOST artifacts add < FILE prints NAME SIZE SHA256.
	body := "x by artifacts add\n"
	r = u.ssh(t, body, "artifacts", "add", "--session", id, "files/x.txt")
	if want := fmt.Sprintf("files/x.txt %d %s\n", len(body), sha256Hex(body)); r.code != 0 || r.out != want {
		t.Errorf("artifacts add: %v; want %q", r, want)
	}
	if r := u.scp(t, ":/"+id+"/files/x.txt", "x.back"); r.code != 0 {
		t.Errorf("scp back: %v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(u.dir, "x.back")); string(got) != body {
		t.Errorf("scp back: %q; want %q", got, body)
	}
	r = u.ssh(t, "", "artifacts", "ls", "--session", id)
	for _, want := range []string{
		"classes/src/greet/greet.go ", "classes/src/shout/shout.go ", "files/data.txt 6 " + sha256Hex("1,2,3\n"),
		"files/notes.txt ", "files/x.txt ", "archives/set.tar.gz ",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("artifacts ls: %v; want a line with %q", r, want)
		}
	}

	// The session sees all of it (each cell imports what it uses, as a
	// user pasting snippets would).
	tests := []struct{ name, code, want string }{
		{"package", `import "greet"; greet.Hello("x")`, "\"hello, x\"\n"},
		{"package-folder", `import "shout"; shout.Up("hi")`, "\"HI!\"\n"},
		{"file", `import "os"; b, _ := os.ReadFile("data.txt"); string(b)`, "\"1,2,3\\n\"\n"},
		{"archive", `import "os"; b, _ := os.ReadFile("set.tar.gz/in/a.txt"); string(b)`, "\"a from the archive\"\n"},
		{"added", `import "os"; b, _ := os.ReadFile("x.txt"); string(b)`, fmt.Sprintf("%q\n", body)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := u.ssh(t, "", "eval", "--session", id, tt.code)
			if r.code != 0 || r.out != tt.want {
				t.Errorf("eval %s: %v; want %q", tt.code, r, tt.want)
			}
		})
	}

	// A package file may be replaced; a file only by the same bytes.
	if r := u.scp(t, "other/greet.go", ":/"+id+"/classes/src/greet/greet.go"); r.code != 0 {
		t.Errorf("scp over a package file: %v; want exit 0", r)
	}
	if r := u.scp(t, "data.txt", ":/"+id+"/files/data.txt"); r.code != 0 {
		t.Errorf("scp the same bytes again: %v; want exit 0", r)
	}
	if r := u.scp(t, "other/extra.txt", ":/"+id+"/files/data.txt"); r.code == 0 || !strings.Contains(r.err, "already exists") {
		t.Errorf("scp other bytes over a file: %v; want a failure saying already exists", r)
	}
	if got, _ := os.ReadFile(filepath.Join(h.Root, id, "files", "data.txt")); string(got) != "1,2,3\n" {
		t.Errorf("files/data.txt after a refused overwrite: %q; want the first upload", got)
	}
}

// Hostile names through sftp and scp, and another user's session: each is
// refused, and nothing is written anywhere under the root.
func TestOpenSSHHostileUploads(t *testing.T) {
	needOpenSSH(t)
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	u := newOpenSSHUser(t, h)
	id := u.newSession(t)
	bob := u.as("bob", addUser(t, h, "bob"))
	bobID := bob.newSession(t)
	zipSlip, err := os.ReadFile("../../artifacts/testdata/hostile/zip-slip.zip")
	if err != nil {
		t.Fatal(err)
	}
	u.write(t, map[string]string{"x.txt": "x", "zip-slip.zip": string(zipSlip)})
	// Open the stores first, so that the before picture has their folders.
	for _, c := range []struct {
		u  *opensshUser
		id string
	}{{u, id}, {bob, bobID}} {
		if r := c.u.ssh(t, "", "artifacts", "ls", "--session", c.id); r.code != 0 {
			t.Fatalf("artifacts ls: %v", r)
		}
	}
	before := rootTree(t, h.Root)
	tests := []struct{ name, local, remote string }{
		{"dot-dot-above-session", "x.txt", "/" + id + "/../../x"},
		{"dot-dot-from-files", "x.txt", "/" + id + "/files/../../x"},
		{"root", "x.txt", "/x"},
		{"session-folder", "x.txt", "/" + id + "/x"},
		{"journal", "x.txt", "/" + id + "/classes/repl/x"},
		{"session-json", "x.txt", "/" + id + "/session.json"},
		{"temp-folder", "x.txt", "/" + id + "/.tmp/x"},
		{"package-without-folder", "x.txt", "/" + id + "/classes/src/x.go"},
		{"other-users-session", "x.txt", "/" + bobID + "/files/x.txt"},
		{"unknown-session", "x.txt", "/00000000-0000-0000-0000-000000000000/files/x.txt"},
		{"zip-slip", "zip-slip.zip", "/" + id + "/archives/zip-slip.zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/sftp", func(t *testing.T) {
			r := u.sftp(t, "put "+tt.local+" "+tt.remote+"\n")
			if r.code == 0 || r.err == "" {
				t.Errorf("sftp put %s: %v; want a failure with a message", tt.remote, r)
			}
		})
		t.Run(tt.name+"/scp", func(t *testing.T) {
			r := u.scp(t, tt.local, ":"+tt.remote)
			if r.code == 0 || r.err == "" {
				t.Errorf("scp to %s: %v; want a failure with a message", tt.remote, r)
			}
		})
	}
	// bob sees only his own session; alice's uuid is not found for him.
	r := bob.sftp(t, "ls -1 /\n")
	if r.code != 0 || !strings.Contains(r.out, bobID) || strings.Contains(r.out, id) {
		t.Errorf("bob's sftp ls /: %v; want only %s", r, bobID)
	}
	if r := bob.sftp(t, "get /"+id+"/files\n"); r.code == 0 {
		t.Errorf("bob reading alice's session: %v; want a failure", r)
	}
	if after := rootTree(t, h.Root); after != before {
		t.Errorf("hostile uploads changed the root:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// addUser makes an OpenSSH key pair for name, adds the user with
// `replhost user add` while the host runs, and returns the private key.
func addUser(tb testing.TB, h *hostProc, name string) string {
	tb.Helper()
	key := filepath.Join(tb.TempDir(), name+"_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key).CombinedOutput(); err != nil {
		tb.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	if out, err := exec.Command(replhostBin, "user", "add", "--root", h.Root, name, key+".pub").CombinedOutput(); err != nil {
		tb.Fatalf("replhost user add: %v\n%s", err, out)
	}
	return key
}

// rootTree lists every path under root with its size (session.json and its
// temporary twin left out: their last-used time moves on every login).
func rootTree(tb testing.TB, root string) string {
	tb.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // renamed away between listing and stat (session.json's temp)
		}
		if err != nil {
			return err
		}
		if n := fi.Name(); n == "session.json" || strings.HasPrefix(n, ".tmp-session.json") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		size := fi.Size()
		if fi.IsDir() {
			size = 0
		}
		fmt.Fprintf(&b, "%s %d\n", rel, size)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// An upload whose client is killed mid-stream (ssh artifacts add fed from
// a pipe; sftp put, killed alone or with its ssh) leaves neither the
// artifact nor a temporary file.
func TestOpenSSHCutUploads(t *testing.T) {
	needOpenSSH(t)
	h := startHostProc(t, filepath.Join(t.TempDir(), "root"))
	u := newOpenSSHUser(t, h)
	id := u.newSession(t)
	if r := u.ssh(t, "", "artifacts", "ls", "--session", id); r.code != 0 {
		t.Fatalf("artifacts ls: %v", r)
	}
	session := filepath.Join(h.Root, id)
	before := rootTree(t, session)
	// A sparse file: big enough that no transfer ends before the kill,
	// cheap to make.
	big := filepath.Join(u.dir, "big.bin")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(768 << 20)
		f.Close()
	}

	t.Run("ssh-artifacts-add", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		args := append(append(slicesClone(u.opts), "-p", u.port, u.dest), "artifacts", "add", "--session", id, "files/big.bin")
		cmd := exec.Command("ssh", args...)
		cmd.Stdin = pr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pr.Close()
		defer pw.Close()
		wrote := make(chan error, 1)
		go func() { // the pipe blocks once ssh stops reading: don't wait on it
			chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
			for range 4 {
				if _, err := pw.Write(chunk); err != nil {
					wrote <- err
					return
				}
			}
			wrote <- nil
		}()
		if !waitUntil(func() bool { return tempBytes(session) >= 1<<20 }) {
			t.Fatalf("the host never received 1 MiB; host log:\n%s", h.Log())
		}
		cmd.Process.Kill()
		cmd.Wait()
		pw.Close()
		<-wrote
		checkNothingLeft(t, h, session, before)
	})

	for _, tt := range []struct {
		name  string
		group bool // kill sftp and its ssh (the connection drops) or sftp alone (ssh sends EOF)
	}{{"sftp-and-its-ssh", true}, {"sftp-alone", false}} {
		t.Run(tt.name, func(t *testing.T) {
			batch := filepath.Join(t.TempDir(), "batch")
			os.WriteFile(batch, []byte("put big.bin /"+id+"/files/big.bin\n"), 0o644)
			args := append(slicesClone(u.opts), "-P", u.port, "-b", batch, u.dest)
			cmd := exec.Command("sftp", args...)
			cmd.Dir = u.dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := cmd.Process.Pid
			defer syscall.Kill(-pgid, syscall.SIGKILL) // the ssh child, whatever happens
			if !waitUntil(func() bool { return tempBytes(session) >= 4<<20 }) {
				t.Fatalf("the host never received 4 MiB; host log:\n%s", h.Log())
			}
			if tt.group {
				syscall.Kill(-pgid, syscall.SIGKILL)
			} else {
				cmd.Process.Kill()
			}
			cmd.Wait()
			checkNothingLeft(t, h, session, before)
		})
	}
	if r := u.ssh(t, "", "artifacts", "ls", "--session", id); r.code != 0 || r.out != "" {
		t.Errorf("artifacts ls after the cut uploads: %v; want none", r)
	}
}

// tempBytes is how many bytes the uploads in progress of a session hold.
func tempBytes(session string) int64 {
	var n int64
	ents, _ := os.ReadDir(filepath.Join(session, ".tmp"))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// checkNothingLeft waits for the host to drop the cut upload, then checks
// that the session folder is as before it.
func checkNothingLeft(tb testing.TB, h *hostProc, session, before string) {
	tb.Helper()
	empty := func() bool {
		ents, err := os.ReadDir(filepath.Join(session, ".tmp"))
		return err == nil && len(ents) == 0
	}
	if !waitUntil(empty) {
		tb.Errorf("temporary files left in %s/.tmp; host log:\n%s", session, h.Log())
	}
	if after := rootTree(tb, session); after != before {
		tb.Errorf("the session folder changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// waitUntil polls cond every 10 ms for at most 30 s.
func waitUntil(cond func() bool) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}
