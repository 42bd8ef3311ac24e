package bench

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// target is a server the bench drives: replhost, or the anchor (OpenSSH's
// sshd with the yaegi CLI as ForceCommand).
type target struct {
	name     string
	addr     string // host:port of interactive and exec sessions
	port     string
	sftpPort string // where sftp and scp go (the anchor: a port without ForceCommand)
	user     string
	keyFile  string
	key      gossh.Signer
	hostKey  gossh.PublicKey
	prompt   string // what ends every prompt
	result   string // how a value prints, %s the value
	quit     string // typed to end a session; "" closes the connection
	cmd      *exec.Cmd
	logFile  string
	metrics  string // replhost: host:port of /metrics
	start    func() error
}

// pid is the server's root process.
func (t *target) pid() int { return t.cmd.Process.Pid }

// stop ends the server and its tree: SIGTERM, then SIGKILL after 10 s.
func (t *target) stop() {
	if t.cmd == nil || t.cmd.ProcessState != nil {
		return
	}
	t.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { t.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.cmd.Process.Kill()
		<-done
	}
}

// kill ends the server with SIGKILL, as a crash would.
func (t *target) kill() {
	if t.cmd != nil && t.cmd.ProcessState == nil {
		t.cmd.Process.Kill()
		t.cmd.Wait()
	}
}

var (
	listeningRE = regexp.MustCompile(`msg="replhost listening" addr=([0-9.:]+)`)
	metricsRE   = regexp.MustCompile(`msg="metrics listening" addr=([0-9.:]+)`)
)

// startReplhost runs `bin serve` in process mode on 127.0.0.1:0 with a root
// under dir. Restarting it (t.start again) keeps root, key and port.
func startReplhost(bin, dir string, extra []string) (*target, error) {
	root := filepath.Join(dir, "replhost-root")
	t := &target{name: "replhost", user: "bench", prompt: "go> ", result: "\n%s\r\n", quit: ":quit",
		logFile: filepath.Join(dir, "replhost.log")}
	listen := "127.0.0.1:0"
	t.start = func() error {
		logf, err := os.OpenFile(t.logFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		defer logf.Close()
		args := append([]string{"serve", "--isolation", "process", "--listen", listen, "--root", root,
			"--max-sessions-per-user", "100000", "--metrics-listen", "127.0.0.1:0"}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.Env = append(os.Environ(), "USER="+t.user)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start replhost: %w", err)
		}
		t.cmd = cmd
		deadline := time.Now().Add(30 * time.Second)
		for {
			log, _ := os.ReadFile(t.logFile)
			m, mm := listeningRE.FindSubmatch(log), metricsRE.FindSubmatch(log)
			if m != nil && mm != nil {
				t.addr, t.metrics = string(m[1]), string(mm[1])
				break
			}
			if time.Now().After(deadline) || !alive(cmd) {
				t.kill()
				return fmt.Errorf("replhost did not listen:\n%s", log)
			}
			time.Sleep(20 * time.Millisecond)
		}
		_, t.port, _ = net.SplitHostPort(t.addr)
		t.sftpPort = t.port
		listen = t.addr // a restart comes back on the same port
		return nil
	}
	if err := t.start(); err != nil {
		return nil, err
	}
	t.keyFile = filepath.Join(root, "users", t.user, "id_ed25519")
	var err error
	if t.key, err = loadKey(t.keyFile); err != nil {
		return nil, err
	}
	kh, err := os.ReadFile(filepath.Join(root, "known_hosts"))
	if err != nil {
		return nil, err
	}
	if _, _, t.hostKey, _, _, err = gossh.ParseKnownHosts(kh); err != nil {
		return nil, fmt.Errorf("replhost known_hosts: %w", err)
	}
	return t, nil
}

func alive(cmd *exec.Cmd) bool {
	return cmd.Process.Signal(syscall.Signal(0)) == nil
}

func loadKey(path string) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return gossh.ParsePrivateKey(b)
}

// startAnchor runs OpenSSH's sshd from dir with its own host key and
// config on two loopback ports: the first forces the yaegi CLI (built from
// go.mod's version) as each login's command, the second is plain sshd
// for uploads (internal-sftp). key is the client key both servers accept.
func startAnchor(dir, yaegi, keyFile string, key gossh.Signer, log func(string, ...any)) (*target, error) {
	const sshd = "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		log("no %s: installing openssh-server with apt-get", sshd)
		if err := aptInstall("openssh-server"); err != nil {
			return nil, err
		}
	}
	// Debian's sshd insists on its privilege separation folder.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return nil, err
	}
	me, err := user.Current()
	if err != nil {
		return nil, err
	}
	d := filepath.Join(dir, "anchor")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, err
	}
	hostKey := filepath.Join(d, "host_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return nil, err
	}
	hk, _, _, _, err := gossh.ParseAuthorizedKey(pub)
	if err != nil {
		return nil, err
	}
	ak := filepath.Join(d, "authorized_keys")
	if err := os.WriteFile(ak, gossh.MarshalAuthorizedKey(key.PublicKey()), 0o600); err != nil {
		return nil, err
	}
	port, sftpPort, err := freePort(), freePort(), error(nil)
	config := filepath.Join(d, "sshd_config")
	body := strings.Join([]string{
		"ListenAddress 127.0.0.1:" + port,
		"ListenAddress 127.0.0.1:" + sftpPort,
		"HostKey " + hostKey,
		"AuthorizedKeysFile " + ak,
		"UsePAM no",
		"StrictModes no",
		"PidFile none",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"Subsystem sftp internal-sftp",
		"LogLevel ERROR",
		// Debian's bash sources ~/.bashrc for sshd's `bash -c` below shell
		// level 2; it must not burden the anchor's logins.
		"SetEnv SHLVL=1",
		"Match LocalPort " + port,
		"\tForceCommand " + yaegi,
	}, "\n") + "\n"
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		return nil, err
	}
	t := &target{name: "anchor", user: me.Username, port: port, sftpPort: sftpPort,
		addr: "127.0.0.1:" + port, keyFile: keyFile, key: key, hostKey: hk,
		prompt: "> ", result: ": %s\r\n", logFile: filepath.Join(d, "sshd.log")}
	t.start = func() error {
		logf, err := os.Create(t.logFile)
		if err != nil {
			return err
		}
		defer logf.Close()
		cmd := exec.Command(sshd, "-D", "-e", "-f", config)
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start sshd: %w", err)
		}
		t.cmd = cmd
		for deadline := time.Now().Add(10 * time.Second); ; {
			c, err := net.Dial("tcp", t.addr)
			if err == nil {
				c.Close()
				return nil
			}
			if time.Now().After(deadline) || !alive(cmd) {
				t.kill()
				b, _ := os.ReadFile(t.logFile)
				return fmt.Errorf("sshd did not listen on %s: %s", t.addr, b)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return t, t.start()
}

func aptInstall(pkg string) error {
	for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", pkg}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "0"
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// knownHosts writes one known_hosts file for every target's ports.
func knownHosts(path string, ts ...*target) error {
	var b strings.Builder
	for _, t := range ts {
		line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(t.hostKey)))
		for _, p := range []string{t.port, t.sftpPort} {
			fmt.Fprintf(&b, "[127.0.0.1]:%s %s\n", p, line)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// opensshArgs are the OpenSSH client's options for t: no user config, only
// the bench's key and known_hosts, never a prompt.
func (t *target) opensshArgs(knownHostsFile string) []string {
	return []string{"-F", "/dev/null", "-i", t.keyFile, "-o", "IdentitiesOnly=yes",
		"-o", "UserKnownHostsFile=" + knownHostsFile, "-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes", "-o", "LogLevel=ERROR"}
}

// metricsValue reads one unlabelled sample of replhost's /metrics.
func (t *target) metricsValue(name string) (float64, error) {
	hc := http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get("http://" + t.metrics + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			var f float64
			_, err := fmt.Sscan(v, &f)
			return f, err
		}
	}
	return 0, fmt.Errorf("metric %s not found", name)
}

// metricsBucket reads the cumulative count of histogram name's bucket
// whose upper bound is nearest le, and the bound itself.
func (t *target) metricsBucket(name string, le float64) (count, bound float64, err error) {
	hc := http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get("http://" + t.metrics + "/metrics")
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	found := false
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name+`_bucket{le="`)
		if !ok {
			continue
		}
		b, v, ok := strings.Cut(rest, `"} `)
		var bf, vf float64
		if !ok || parseFloat(b, &bf) != nil || parseFloat(v, &vf) != nil {
			continue
		}
		if !found || math.Abs(bf-le) < math.Abs(bound-le) {
			count, bound, found = vf, bf, true
		}
	}
	if !found {
		return 0, 0, fmt.Errorf("histogram %s not found", name)
	}
	return count, bound, sc.Err()
}

func parseFloat(s string, f *float64) error {
	_, err := fmt.Sscan(s, f)
	return err
}
