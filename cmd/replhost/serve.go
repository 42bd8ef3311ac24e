package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/replhost/replhost/metrics"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
	"github.com/replhost/replhost/sshd"
	"github.com/replhost/replhost/users"
)

// serveConfig is the host's configuration, from flags and REPLHOST_* variables.
type serveConfig struct {
	listen, root, isolation, logFormat, metricsListen string
	sessionTTL, evalTimeout                           time.Duration
	memory                                            byteSize
	maxSessions                                       int
	allowPkg                                          listFlag
	workerUser                                        string
	maxThreads                                        int
	disk                                              byteSize
	maxStartups                                       sshd.MaxStartups
	perSourceMaxStartups                              sshd.PerSourceLimit
	trustedUserCAKeys                                 string
}

func serveFlags(stderr io.Writer) (*flag.FlagSet, *serveConfig) {
	c := &serveConfig{memory: 512 << 20, disk: sandbox.DefaultDisk, maxStartups: sshd.DefaultMaxStartups}
	fs := flag.NewFlagSet("replhost serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:2222", "address to listen on")
	fs.StringVar(&c.root, "root", "./replhost-root", "directory of the host's state: host key, users, sessions")
	fs.StringVar(&c.isolation, "isolation", "process", "process: each session in its own worker process, confined by the kernel (Landlock, a memory cgroup); inproc: every interpreter in the host process, symbol, package and file-name isolation only, for trusted single-tenant use")
	fs.DurationVar(&c.sessionTTL, "session-ttl", 30*time.Minute, "evict a detached session this long after its last use")
	fs.DurationVar(&c.evalTimeout, "eval-timeout", 0, "bound on each interactive cell (0: none); the eval command uses 60s unless this is set")
	fs.Var(&c.memory, "memory", "memory cap per session (e.g. 512MiB)")
	fs.IntVar(&c.maxSessions, "max-sessions-per-user", 16, "sessions a user may have at once")
	fs.Var(&c.allowPkg, "allow-pkg", "standard package to add to the allowlist (repeatable; net/... for a tree)")
	fs.StringVar(&c.metricsListen, "metrics-listen", "", "address for Prometheus metrics (off when empty)")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.workerUser, "worker-user", "", "uids workers run as: FIRST-LAST (one per session), a user or uid (shared), or empty: one per session from a range picked by --root (when root)")
	fs.IntVar(&c.maxThreads, "max-threads", sandbox.DefaultMaxThreads, "threads per session's worker (pids cgroup)")
	fs.Var(&c.disk, "disk", "disk quota per session: files, unpacked archives, packages and inodes (e.g. 1GiB)")
	fs.Var(&c.maxStartups, "max-startups", "start:rate:full: past start unauthenticated connections refuse new ones with rate% chance, rising to all at full (sshd's MaxStartups)")
	fs.Var(&c.perSourceMaxStartups, "per-source-max-startups", "unauthenticated connections one address may hold, or none")
	fs.StringVar(&c.trustedUserCAKeys, "trusted-user-ca-keys", "", "file of CA public keys whose user certificates log in the user named as a principal")
	return fs, c
}

// serve runs the host until SIGINT or SIGTERM.
func serve(args []string, stdout, stderr io.Writer) int {
	fs, c := serveFlags(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := applyEnv(fs); err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "replhost: serve takes no arguments, got %q\n", fs.Args())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runHost(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return 1
	}
	return 0
}

func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// runHost starts the host on c and serves until ctx ends, then shuts down:
// listeners first, then sessions (kept on disk as restorable).
func runHost(ctx context.Context, c *serveConfig, stdout, stderr io.Writer) error {
	log, err := newLogger(c.logFormat, stderr)
	if err != nil {
		return err
	}
	newEval, stopEval, err := evaluatorFor(c)
	if err != nil {
		return err
	}
	defer stopEval()
	if err := os.MkdirAll(c.root, 0o700); err != nil {
		return fmt.Errorf("create root: %w", err)
	}
	unlock, err := lockRoot(c.root)
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
	var met *metrics.Metrics
	if c.metricsListen != "" {
		met = metrics.New(func() map[repl.State]int { return mgr.Counts() })
		newEval = met.Count(newEval)
	}
	mgr, err = repl.NewManager(repl.Config{
		Root: c.root, NewEvaluator: newEval, SessionTTL: c.sessionTTL,
		MaxSessionsPerUser: c.maxSessions, Logger: log,
		CheckOwner: configuredUser(dir), ReplayTimeout: c.evalTimeout,
	})
	if err != nil {
		return err
	}
	srv, err := sshd.New(sshd.Config{
		Manager: mgr, Users: dir, HostKey: hostKey, Logger: log,
		EvalTimeout: c.evalTimeout, ExecEvalTimeout: c.evalTimeout,
		MaxStartups: c.maxStartups, PerSourceMaxStartups: int(c.perSourceMaxStartups), TrustedUserCAKeys: c.trustedUserCAKeys,
	})
	if err != nil {
		return err
	}
	go reloadOnHangup(ctx, hup, log, frontDoorReload(srv, c))
	l, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	if err := bootstrap(c.root, l.Addr().String(), hostKey, dir, stdout); err != nil {
		l.Close()
		return err
	}
	log.Info("replhost listening", "addr", l.Addr().String(), "root", c.root, "isolation", c.isolation)
	evictCtx, stopEvict := context.WithCancel(ctx)
	defer stopEvict()
	go mgr.RunEvictor(evictCtx, 0)
	if met != nil {
		ml, err := net.Listen("tcp", c.metricsListen)
		if err != nil {
			return fmt.Errorf("--metrics-listen: %w", err)
		}
		log.Info("metrics listening", "addr", ml.Addr().String())
		go met.Serve(evictCtx, ml)
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(l) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
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

// evaluatorFor returns how sessions get their interpreter, and what to
// stop at shutdown. Process isolation needs Landlock: without it the host
// refuses to start rather than run sessions unconfined.
func evaluatorFor(c *serveConfig) (repl.NewEvaluator, func(), error) {
	allow := sandbox.NewAllowlist(c.allowPkg)
	switch c.isolation {
	case "inproc":
		return repl.InProcess(allow), func() {}, nil
	case "process":
		if err := sandbox.LandlockAvailable(); err != nil {
			return nil, nil, err
		}
		workerUsers, err := sandbox.ParseWorkerUser(c.workerUser, c.root)
		if err != nil {
			return nil, nil, err
		}
		pool := sandbox.NewPool(sandbox.PoolOptions{MaxThreads: c.maxThreads, Disk: int64(c.disk), Users: workerUsers})
		return repl.InWorkers(pool, allow, int64(c.memory)), func() { pool.Close() }, nil
	}
	return nil, nil, fmt.Errorf("--isolation %q: want process or inproc", c.isolation)
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
