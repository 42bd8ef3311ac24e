package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchUploadBytes is the size of the benchmark's upload.
const benchUploadBytes = 256 << 20

// BenchmarkSftpPut256MiB uploads one 256 MiB file with OpenSSH's sftp
// client (sftp -b, default options) into the replhost binary (a session's
// files/) and, in the same run, into OpenSSH's sshd on 127.0.0.1
// (internal-sftp), alternating which goes first. It reports both rates and
// their ratio, ours over theirs (above 1: replhost is faster). Each op is
// one upload to each server; the connection's set-up is inside the timing,
// as for a user. replhost also hashes (SHA-256) and fsyncs every upload
// before it is visible; sshd does neither.
//
//	go test -run '^$' -bench SftpPut256MiB -benchtime 5x ./cmd/replhost/
func BenchmarkSftpPut256MiB(b *testing.B) {
	needOpenSSH(b)
	src := randomFile(b, benchUploadBytes)
	h := startHostProc(b, filepath.Join(b.TempDir(), "root"))
	u := newOpenSSHUser(b, h)
	id := u.newSession(b)
	ours := &uploadTarget{name: "replhost", u: u, dir: "/" + id + "/files/",
		rm: func(tb testing.TB, file string) {
			if r := u.ssh(tb, "", "artifacts", "rm", "--session", id, "files/"+file); r.code != 0 {
				tb.Fatalf("artifacts rm: %v", r)
			}
		}}
	targets := []*uploadTarget{ours}
	if theirs := startSSHD(b, u, filepath.Join(h.Root, "users", "tester", "authorized_keys")); theirs != nil {
		targets = append(targets, theirs)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range targets {
			t := targets[(i+j)%len(targets)]
			t.put(b, src, fmt.Sprintf("big-%d.bin", i))
		}
	}
	b.StopTimer()
	for _, t := range targets {
		b.ReportMetric(t.rate(), t.name+"-MB/s")
	}
	if len(targets) == 2 {
		// The median over pairs of uploads run back to back, which share
		// the machine's load of the moment, and the ratio of the totals.
		var pairs []float64
		for i := range targets[0].times {
			pairs = append(pairs, targets[1].times[i].Seconds()/targets[0].times[i].Seconds())
		}
		slices.Sort(pairs)
		b.ReportMetric(pairs[len(pairs)/2], "ratio-median")
		b.ReportMetric(targets[0].rate()/targets[1].rate(), "ratio")
	}
}

// uploadTarget is a server the benchmark uploads to.
type uploadTarget struct {
	name  string
	u     *opensshUser
	dir   string                           // remote folder, with a final slash
	rm    func(tb testing.TB, file string) // removes an upload, outside the timing
	times []time.Duration                  // of each upload
}

// put uploads src as file and checks it arrived whole.
func (t *uploadTarget) put(b *testing.B, src, file string) {
	b.Helper()
	start := time.Now()
	r := t.u.sftp(b, "put "+src+" "+t.dir+file+"\n")
	t.times = append(t.times, time.Since(start))
	if r.code != 0 {
		b.Fatalf("%s: sftp put: %v", t.name, r)
	}
	b.StopTimer()
	t.rm(b, file)
	b.StartTimer()
}

// rate is the upload rate in MB/s (10^6 bytes), as go test prints them.
func (t *uploadTarget) rate() float64 {
	var took time.Duration
	for _, d := range t.times {
		took += d
	}
	return float64(len(t.times)) * benchUploadBytes / 1e6 / took.Seconds()
}

// randomFile writes n incompressible bytes to a temporary file.
func randomFile(tb testing.TB, n int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "src.bin")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.NewChaCha8([32]byte{7})
	buf := make([]byte, 1<<20)
	for written := 0; written < n; written += len(buf) {
		rng.Read(buf)
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// startSSHD runs OpenSSH's sshd on a free loopback port with a fresh host
// key, accepting the keys of authorizedKeys for the current user, and
// returns it as an upload target for u's key; nil (the comparison is
// skipped) where there is no /usr/sbin/sshd or it cannot start.
func startSSHD(b *testing.B, u *opensshUser, authorizedKeys string) *uploadTarget {
	b.Helper()
	const sshd = "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		b.Logf("no OpenSSH sshd (%v): replhost only", err)
		return nil
	}
	// sshd insists on its privilege separation folder, as its package makes it.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		b.Logf("no /run/sshd (%v): replhost only", err)
		return nil
	}
	me, err := user.Current()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	hostKey := filepath.Join(dir, "host_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey).CombinedOutput(); err != nil {
		b.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	keys, err := os.ReadFile(authorizedKeys)
	if err != nil {
		b.Fatal(err)
	}
	ak := filepath.Join(dir, "authorized_keys")
	port := freePort(b)
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		b.Fatal(err)
	}
	known := filepath.Join(dir, "known_hosts")
	config := filepath.Join(dir, "sshd_config")
	for name, body := range map[string]string{
		ak:    string(keys),
		known: fmt.Sprintf("[127.0.0.1]:%s %s", port, pub),
		config: strings.Join([]string{
			"ListenAddress 127.0.0.1:" + port,
			"HostKey " + hostKey,
			"AuthorizedKeysFile " + ak,
			"UsePAM no",
			"StrictModes no",
			"PidFile none",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"Subsystem sftp internal-sftp",
		}, "\n") + "\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	log, err := os.Create(filepath.Join(dir, "sshd.log"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", config)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		b.Logf("start sshd: %v: replhost only", err)
		return nil
	}
	b.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	up := func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	if !waitUntil(up) {
		text, _ := os.ReadFile(log.Name())
		b.Fatalf("sshd did not listen on %s:\n%s", port, text)
	}
	v := *u
	v.port, v.dest, v.opts = port, me.Username+"@127.0.0.1", nil
	for i := 0; i < len(u.opts); i += 2 {
		o := u.opts[i+1]
		if u.opts[i] == "-o" && strings.HasPrefix(o, "UserKnownHostsFile=") {
			o = "UserKnownHostsFile=" + known
		}
		v.opts = append(v.opts, u.opts[i], o)
	}
	remote := filepath.Join(dir, "uploads")
	if err := os.Mkdir(remote, 0o755); err != nil {
		b.Fatal(err)
	}
	return &uploadTarget{name: "openssh", u: &v, dir: remote + "/",
		rm: func(tb testing.TB, file string) { os.Remove(filepath.Join(remote, file)) }}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
