package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/replhost/replhost/admin"
	"github.com/replhost/replhost/artifacts"
	"github.com/replhost/replhost/audit"
	"github.com/replhost/replhost/cluster"
	"github.com/replhost/replhost/internal/cpupin"
	"github.com/replhost/replhost/internal/hostprocs"
	"github.com/replhost/replhost/metrics"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/sshd"
	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// serveConfig is the host's configuration: flags, then REPLHOST_*
// variables, then the --config file, then the defaults.
type serveConfig struct {
	config, listen, root, isolation, logFormat, metricsListen, auditLog        string
	pprofListen                                                                string
	sessionTTL, evalTimeout, execEvalTimeout, loginGrace                       time.Duration
	memory, outputCap, maxUpload, maxUnpacked, auditLogMaxSize, disk           byteSize
	maxSessions, maxAuthTries, maxChannels, poolSize, poolMax, auditLogBackups int
	maxThreads                                                                 int
	auditCode, perSourcePenalties                                              bool
	allowPkg                                                                   listFlag
	workerUser, trustedUserCAKeys, workerBin                                   string
	maxStartups                                                                sshd.MaxStartups
	perSourceMaxStartups                                                       sshd.PerSourceLimit

	args    []string     // serve's arguments, read again at SIGHUP
	modules moduleFlags  // :get
	cluster clusterFlags // cluster mode (cluster.go)

	logLevel logLevelFlag
	level    *slog.LevelVar // the running logger's level; a reload sets it

	users atomic.Pointer[map[string]userLimits] // [users.NAME] of the config file; replaced by a reload
}

const serveUsage = "replhost [serve] [flags]"

func serveFlags(stdout, stderr io.Writer) (*flag.FlagSet, *serveConfig) {
	c := &serveConfig{memory: 512 << 20, outputCap: sandbox.DefaultOutputCap,
		maxUpload: byteSize(artifacts.DefaultLimits.MaxFileBytes), maxUnpacked: byteSize(artifacts.DefaultLimits.MaxUnpackedBytes),
		auditLogMaxSize: 100 << 20, disk: sandbox.DefaultDisk, maxStartups: sshd.DefaultMaxStartups}
	fs := newFlagSet("replhost serve", serveUsage, stdout, stderr)
	fs.StringVar(&c.config, "config", "", "TOML file of settings: these flags by name, and [users.NAME] tables of per-user limits")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:2222", "address to listen on")
	fs.StringVar(&c.root, "root", "./replhost-root", "directory of the host's state: host key, users, sessions")
	fs.StringVar(&c.isolation, "isolation", "process", "process: each session in its own worker process, confined by the kernel (Landlock, a memory cgroup); inproc: every interpreter in the host process, symbol, package and file-name isolation only, for trusted single-tenant use")
	fs.DurationVar(&c.sessionTTL, "session-ttl", 30*time.Minute, "evict a detached session this long after its last use")
	fs.DurationVar(&c.evalTimeout, "eval-timeout", 0, "bound on each interactive cell (0: none)")
	fs.DurationVar(&c.execEvalTimeout, "exec-eval-timeout", 0, "bound on the cell of an eval command (0: --eval-timeout if set, else 60s)")
	fs.Var(&c.memory, "memory", "memory cap per session (e.g. 512MiB, 2g)")
	fs.Var(&c.outputCap, "output-cap", "output one cell may write before it is cut")
	fs.Var(&c.maxUpload, "max-upload", "largest artifact upload, archives included")
	fs.Var(&c.maxUnpacked, "max-unpacked", "bytes one archive may unpack to")
	fs.IntVar(&c.maxSessions, "max-sessions-per-user", 16, "sessions a user may have at once")
	fs.IntVar(&c.maxChannels, "max-sessions-per-connection", 10, "session channels open at once on one SSH connection (OpenSSH's MaxSessions)")
	fs.IntVar(&c.maxAuthTries, "max-auth-tries", 6, "failed authentication attempts before a connection is closed (OpenSSH's MaxAuthTries)")
	fs.DurationVar(&c.loginGrace, "login-grace-time", 30*time.Second, "close a connection not authenticated by then (OpenSSH's LoginGraceTime)")
	fs.IntVar(&c.poolSize, "pool-size", sandbox.DefaultPoolSize, "idle worker processes kept started for new sessions (process isolation)")
	fs.IntVar(&c.poolMax, "pool-max", sandbox.DefaultMaxPoolSize, "most idle workers kept when logins come faster than they start (the pool grows toward it, then shrinks back to --pool-size)")
	fs.Var(&c.allowPkg, "allow-pkg", "standard package to add to the allowlist (repeatable; net/... for a tree)")
	fs.StringVar(&c.metricsListen, "metrics-listen", "", "address for Prometheus /metrics, /healthz and /readyz (off when empty)")
	fs.StringVar(&c.pprofListen, "pprof-listen", "", "address for Go's profiles of the host process, /debug/pprof/ (off when empty; operators only: keep it on loopback)")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.Var(&c.logLevel, "log-level", "least level logged: debug, info, warn or error (default info; SIGHUP reloads it)")
	fs.StringVar(&c.workerUser, "worker-user", "", "uids workers run as: FIRST-LAST (one per session), a user or uid (shared), or empty: one per session from a range picked by --root (when root)")
	fs.StringVar(&c.workerBin, "worker-bin", "", "binary each session's worker runs (process isolation): empty is "+sandbox.WorkerBinaryName+" beside this binary if there is one, else this binary (replhost worker); either must be of this host's build")
	fs.IntVar(&c.maxThreads, "max-threads", sandbox.DefaultMaxThreads, "threads per session's worker (pids cgroup)")
	fs.Var(&c.disk, "disk", "disk quota per session: files, unpacked archives, packages and inodes (e.g. 1GiB)")
	fs.Var(&c.maxStartups, "max-startups", "start:rate:full: past start unauthenticated connections refuse new ones with rate% chance, rising to all at full (sshd's MaxStartups)")
	fs.Var(&c.perSourceMaxStartups, "per-source-max-startups", "unauthenticated connections one address may hold, or none")
	fs.BoolVar(&c.perSourcePenalties, "per-source-penalties", true, "refuse for a while an address whose connections fail or stall (sshd's PerSourcePenalties defaults)")
	fs.StringVar(&c.trustedUserCAKeys, "trusted-user-ca-keys", "", "file of CA public keys whose user certificates log in the user named as a principal")
	fs.StringVar(&c.auditLog, "audit-log", "", "file of the audit log, JSON lines (off when empty)")
	fs.BoolVar(&c.auditCode, "audit-code", false, "log each cell's source in the audit log, not only its sha256")
	fs.Var(&c.auditLogMaxSize, "audit-log-max-size", "rotate the audit log at this size")
	fs.IntVar(&c.auditLogBackups, "audit-log-backups", 0, "rotated audit logs to keep (0: all)")
	c.modules.register(fs)
	c.cluster.register(fs)
	return fs, c
}

// parseServe reads serve's settings: flags, environment, config file.
func parseServe(args []string, stdout, stderr io.Writer) (*serveConfig, int, bool) {
	fs, c := serveFlags(stdout, stderr)
	pos, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return nil, code, false
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "replhost: serve takes no arguments, got %q\n", pos)
		return nil, 2, false
	}
	if c.config != "" {
		fc, err := readConfig(c.config)
		if err == nil {
			err = fc.apply(fs, given(fs))
		}
		if err != nil {
			fmt.Fprintf(stderr, "replhost: %v\n", err)
			return nil, 2, false
		}
		c.users.Store(&fc.users)
	}
	if err := sandbox.CheckAllowPkg(c.allowPkg); err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return nil, 2, false
	}
	c.args = args
	return c, 0, true
}

// serve runs the host until SIGINT or SIGTERM.
func serve(args []string, stdout, stderr io.Writer) int {
	c, code, ok := parseServe(args, stdout, stderr)
	if !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runHost(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return 1
	}
	return 0
}

func newLogger(format string, level slog.Leveler, w io.Writer) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// runHost starts the host on c and serves until ctx ends, then shuts down:
// listeners first, then sessions (kept on disk as restorable).
func runHost(ctx context.Context, c *serveConfig, stdout, stderr io.Writer) error {
	c.level = new(slog.LevelVar)
	c.level.Set(c.logLevel.level)
	log, err := newLogger(c.logFormat, c.level, stderr)
	if err != nil {
		return err
	}
	newEval, pool, err := evaluatorFor(c)
	if err != nil {
		return err
	}
	if pool != nil {
		defer pool.Close()
	}
	if err := os.MkdirAll(c.root, 0o700); err != nil {
		return fmt.Errorf("create root: %w", err)
	}
	hostDir, err := c.hostDir()
	if err != nil {
		return err
	}
	unlock, err := lockRoot(hostDir)
	if err != nil {
		return err
	}
	defer unlock()
	hup, stopHup := catchHangups()
	defer stopHup()
	hostKey, _, err := users.LoadOrCreateKey(filepath.Join(c.root, hostKeyFile), "replhost host key")
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	dir := users.Open(c.root)
	var mgr *repl.Manager
	var sinks []repl.Events
	if c.auditLog != "" {
		al := audit.Open(audit.Options{Path: c.auditLog, MaxSize: int64(c.auditLogMaxSize),
			MaxBackups: c.auditLogBackups, Code: c.auditCode, Errors: log})
		defer al.Close()
		sinks = append(sinks, al.Record)
	}
	var met *metrics.Metrics
	if c.metricsListen != "" {
		src := metrics.Sources{Sessions: func() map[repl.State]int { return mgr.Counts() }}
		if pool != nil {
			src.IdleWorkers = pool.Idle
		}
		met = metrics.New(src)
		newEval = met.Count(newEval)
		sinks = append(sinks, met.Record)
	}
	events := fanout(sinks)
	fetcher, err := c.modules.fetcher(c.root)
	if err != nil {
		return err
	}
	var (
		l         net.Listener
		node      *cluster.Node
		ownership repl.Ownership
		router    sshd.Cluster
		nodeKey   gossh.Signer
	)
	if c.cluster.enabled() {
		// Listen first: the address is what the node advertises.
		if l, err = net.Listen("tcp", c.listen); err != nil {
			return err
		}
		defer l.Close()
		if nodeKey, err = sshd.LoadNodeKey(c.root); err != nil {
			return fmt.Errorf("node key: %w", err)
		}
		if node, err = joinCluster(ctx, c, l.Addr().String()); err != nil {
			return err
		}
		defer node.Close()
		ownership, router = clusterParts(node)
	}
	mgr, err = repl.NewManager(repl.Config{
		Root: c.root, NewEvaluator: newEval, SessionTTL: c.sessionTTL,
		MaxSessionsPerUser: c.maxSessions, Logger: log, Events: events,
		UserMaxSessions: c.userMaxSessions(),
		Artifacts:       artifacts.Limits{MaxFileBytes: int64(c.maxUpload), MaxUnpackedBytes: int64(c.maxUnpacked)},
		CheckOwner:      configuredUser(dir), ReplayTimeout: c.evalTimeout,
		Modules: fetcher, ModuleAllowed: moduleChecker(sandbox.NewAllowlist(c.allowPkg)),
		Ownership: ownership,
	})
	if err != nil {
		return err
	}
	srv, err := sshd.New(sshd.Config{
		Manager: mgr, Users: dir, HostKey: hostKey, Logger: log, Events: events,
		EvalTimeout: c.evalTimeout, ExecEvalTimeout: cmp.Or(c.execEvalTimeout, c.evalTimeout),
		HandshakeTimeout: c.loginGrace, MaxAuthTries: c.maxAuthTries, MaxChannels: c.maxChannels,
		MaxStartups: c.maxStartups, PerSourceMaxStartups: int(c.perSourceMaxStartups), TrustedUserCAKeys: c.trustedUserCAKeys,
		Penalties: penaltiesOf(c), Cluster: router, NodeKey: nodeKey,
	})
	if err != nil {
		return err
	}
	go reloadOnHangup(ctx, hup, log, configReload(c, mgr), frontDoorReload(srv, c))
	if l == nil {
		if l, err = net.Listen("tcp", c.listen); err != nil {
			return err
		}
	}
	own, loginAddr := c.loginFiles(hostDir, l.Addr().String())
	if err := bootstrap(c.root, own, loginAddr, hostKey, dir, stdout); err != nil {
		l.Close()
		return err
	}
	al, err := admin.Listen(hostDir)
	if err != nil {
		l.Close()
		return err
	}
	log.Info("replhost listening", "addr", l.Addr().String(), "root", c.root, "isolation", c.isolation)
	if c.isolation == "process" {
		log.Info("workers", "binary", cmp.Or(c.workerBin, defaultWorkerBinary()))
	}
	if node != nil {
		log.Info("joined cluster", "node", c.cluster.node, "etcd", c.cluster.etcd)
	}
	bgCtx, stopBg := context.WithCancel(ctx)
	defer stopBg()
	go mgr.RunEvictor(bgCtx, 0)
	if c.isolation == "process" && hostprocs.Enabled() {
		// Cells run in workers: the host relays them, and on one P while
		// it is lightly loaded (internal/hostprocs says why).
		pc := &hostprocs.Controller{Changed: func(n int, cores float64) {
			log.Debug("host GOMAXPROCS", "procs", cmp.Or(n, runtime.GOMAXPROCS(0)), "cores", fmt.Sprintf("%.2f", cores))
		}}
		if pin, err := cpupin.New(); err != nil {
			log.Debug("host and workers not pinned to one CPU", "err", err)
		} else {
			pc.Pin = pin
			pc.PinChanged = func(cpu int, err error) { logPin(log, cpu, err) }
		}
		go pc.Run(bgCtx)
	}
	go admin.Serve(bgCtx, al, hostAdmin{mgr, node, log})
	if node != nil {
		go watchLost(bgCtx, node, mgr, log)
		if err := watchEndedUsers(bgCtx, node, mgr, log); err != nil {
			l.Close()
			return err
		}
	}
	if met != nil {
		ml, err := net.Listen("tcp", c.metricsListen)
		if err != nil {
			return fmt.Errorf("--metrics-listen: %w", err)
		}
		log.Info("metrics listening", "addr", ml.Addr().String())
		go met.Serve(bgCtx, ml)
		met.SetReady(true)
	}
	if c.pprofListen != "" {
		pl, err := net.Listen("tcp", c.pprofListen)
		if err != nil {
			return fmt.Errorf("--pprof-listen: %w", err)
		}
		log.Info("pprof listening", "addr", pl.Addr().String())
		go servePprof(bgCtx, pl, log)
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(l) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	if met != nil {
		met.SetReady(false)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go srv.Shutdown(shutdownCtx) // stop accepting; open connections end as their sessions detach
	if err := mgr.Shutdown(shutdownCtx); err != nil {
		log.Warn("sessions did not all stop in time", "err", err)
	}
	waitCtx, cancelWait := context.WithTimeout(shutdownCtx, 2*time.Second)
	defer cancelWait()
	srv.Shutdown(waitCtx)
	srv.Close()
	return nil
}

// fanout sends each event to every sink; nil when there are none, so that
// the host does no work for events nobody reads.
func fanout(sinks []repl.Events) repl.Events {
	switch len(sinks) {
	case 0:
		return nil
	case 1:
		return sinks[0]
	}
	return func(e repl.Event) {
		for _, s := range sinks {
			s(e)
		}
	}
}

func (c *serveConfig) userMaxSessions() map[string]int {
	m := map[string]int{}
	for name, u := range c.userLimits() {
		if u.MaxSessions > 0 {
			m[name] = u.MaxSessions
		}
	}
	return m
}

// userLimits are the [users.NAME] tables of the config file, as last read.
func (c *serveConfig) userLimits() map[string]userLimits {
	if m := c.users.Load(); m != nil {
		return *m
	}
	return nil
}

// limitsFor is the memory cap and disk quota of user's sessions: the
// user's [users.NAME] overrides, else the host's.
func (c *serveConfig) limitsFor(user string) (l struct{ memory, disk int64 }) {
	l.memory, l.disk = int64(c.memory), int64(c.disk)
	if u, ok := c.userLimits()[user]; ok {
		l.memory = cmp.Or(int64(u.Memory), l.memory)
		l.disk = cmp.Or(int64(u.Disk), l.disk)
	}
	return l
}

// evaluatorFor returns how sessions get their interpreter, and the worker
// pool to close at shutdown (nil in process). Process isolation needs
// Landlock: without it the host refuses to start rather than run sessions
// unconfined.
func evaluatorFor(c *serveConfig) (repl.NewEvaluator, *sandbox.Pool, error) {
	allow := sandbox.NewAllowlist(c.allowPkg)
	switch c.isolation {
	case "inproc":
		return repl.InProcess(allow), nil, nil
	case "process":
		if err := sandbox.LandlockAvailable(); err != nil {
			return nil, nil, err
		}
		workerUsers, err := sandbox.ParseWorkerUser(c.workerUser, c.root)
		if err != nil {
			return nil, nil, err
		}
		size := c.poolSize
		if size == 0 {
			size = -1 // PoolOptions: 0 is the default, negative none
		}
		workerBin, err := workerBinary(c.workerBin)
		if err != nil {
			return nil, nil, err
		}
		if err := sandbox.CheckWorkerBinary(context.Background(), workerBin); err != nil {
			return nil, nil, err
		}
		pool := sandbox.NewPool(sandbox.PoolOptions{Executable: workerBin, Size: size, MaxSize: c.poolMax, MaxThreads: c.maxThreads, Disk: int64(c.disk), Users: workerUsers})
		outputCap := int64(c.outputCap)
		return repl.InWorkersFor(pool, func(spec repl.EvaluatorSpec) sandbox.WorkerOptions {
			lim := c.limitsFor(spec.Owner)
			return sandbox.WorkerOptions{Allow: allow, Memory: lim.memory, Disk: lim.disk,
				OutputCap: outputCap, Group: spec.Owner, MaxThreads: c.maxThreads}
		}), pool, nil
	}
	return nil, nil, fmt.Errorf("--isolation %q: want process or inproc", c.isolation)
}

// workerBinary is --worker-bin made absolute (workers start in /), after a
// check that it is an executable file; "" stays "" (sandbox's default).
func workerBinary(flag string) (string, error) {
	if flag == "" {
		return "", nil
	}
	abs, err := filepath.Abs(flag)
	if err != nil {
		return "", fmt.Errorf("--worker-bin: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("--worker-bin %s: not an executable file", flag)
	}
	return abs, nil
}

// defaultWorkerBinary names the binary workers run without --worker-bin.
func defaultWorkerBinary() string {
	exe, err := sandbox.DefaultWorkerBinary()
	if err != nil {
		return err.Error()
	}
	return exe
}

// configuredUser is the check of a session.json's owner (hostile input):
// a well-formed name of a user this host has.
func configuredUser(dir *users.Dir) func(string) error {
	return func(name string) error {
		if err := users.CheckName(name); err != nil {
			return err
		}
		if fi, err := os.Stat(filepath.Join(dir.Path(name), "authorized_keys")); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("no such user %q", name)
		}
		return nil
	}
}

// logPin logs a change of internal/hostprocs' CPU pinning: each at debug,
// a failure (after which it does not pin again) as a warning.
func logPin(log *slog.Logger, cpu int, err error) {
	switch {
	case err != nil:
		log.Warn("host and workers left on every CPU", "err", err)
	case cpu < 0:
		log.Debug("host and workers on every CPU")
	default:
		log.Debug("host and workers pinned", "cpu", cpu)
	}
}
