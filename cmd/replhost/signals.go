package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sshd"
)

// catchHangups starts catching SIGHUP, whose default action ends the
// process: called first in serve, so a SIGHUP during start-up is kept for
// the host instead of killing it.
func catchHangups() (hup <-chan os.Signal, stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	return ch, func() { signal.Stop(ch) }
}

// reloadHook re-reads one part of the host's configuration. Reload hooks
// run in order on each SIGHUP; a failing one is logged and leaves its part
// as it was, and the rest still run. (The config file adds its own.)
type reloadHook struct {
	name string
	run  func() error
}

// reloadOnHangup runs hooks at each SIGHUP until ctx ends. SIGHUP never ends
// the host; SIGINT and SIGTERM stay the graceful shutdown.
func reloadOnHangup(ctx context.Context, hup <-chan os.Signal, log *slog.Logger, hooks ...reloadHook) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		log.Info("SIGHUP: reloading")
		for _, h := range hooks {
			if err := h.run(); err != nil {
				log.Warn("reload failed; kept as it was", "part", h.name, "err", err)
				continue
			}
			log.Info("reloaded", "part", h.name)
		}
	}
}

// frontDoorReload re-reads the trusted CA keys and re-applies the
// admission limits; users and their keys need nothing (authorized_keys is
// read at each login).
func frontDoorReload(srv *sshd.Server, c *serveConfig) reloadHook {
	return reloadHook{"front door", func() error {
		return srv.Reload(sshd.Limits{
			MaxStartups: c.maxStartups, PerSourceMaxStartups: int(c.perSourceMaxStartups),
			TrustedUserCAKeys: c.trustedUserCAKeys, Penalties: penaltiesOf(c),
		})
	}}
}

// penaltiesOf is sshd's default penalties, or none with
// --per-source-penalties=false.
func penaltiesOf(c *serveConfig) *sshd.Penalties {
	if c.perSourcePenalties {
		return nil
	}
	return &sshd.Penalties{}
}

// configReload reads the settings again, as at start (flags, environment,
// config file), and applies those a running host can change: the session
// caps, the per-user limits (memory and disk apply to workers started from
// then on), and the front door's, which frontDoorReload, run after it,
// applies. The rest (addresses, root, isolation) take a restart.
func configReload(c *serveConfig, mgr *repl.Manager) reloadHook {
	return reloadHook{"config file", func() error {
		var errOut strings.Builder
		n, _, ok := parseServe(c.args, io.Discard, &errOut)
		if !ok {
			return errors.New(strings.TrimPrefix(strings.TrimSpace(errOut.String()), "replhost: "))
		}
		users := n.userLimits()
		c.users.Store(&users)
		mgr.SetSessionLimits(n.maxSessions, n.userMaxSessions())
		c.maxStartups, c.perSourceMaxStartups, c.trustedUserCAKeys = n.maxStartups, n.perSourceMaxStartups, n.trustedUserCAKeys
		c.perSourcePenalties = n.perSourcePenalties
		if c.level != nil {
			c.level.Set(n.logLevel.level)
		}
		return nil
	}}
}

// logLevelFlag is --log-level: a slog level by name.
type logLevelFlag struct{ level slog.Level }

func (f *logLevelFlag) String() string { return strings.ToLower(f.level.String()) }

func (f *logLevelFlag) Set(s string) error {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return fmt.Errorf("want debug, info, warn or error")
	}
	f.level = l
	return nil
}
