package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Bounds on a session's environment (Options.Env, WorkerOptions.Env): what
// the SSH client sent is hostile input, carried to the worker in its init.
const (
	MaxEnvVars  = 32
	MaxEnvBytes = 64 << 10 // names and values together
)

// ErrBadEnv is a session environment CheckEnv refuses.
var ErrBadEnv = errors.New("sandbox: bad session environment")

// CheckEnv checks a session's environment: at most MaxEnvVars NAME=VALUE
// entries of MaxEnvBytes in all, each NAME a shell variable name
// ([A-Za-z_][A-Za-z0-9_]*), no NUL in a value (a C environment could not
// hold it), no HOME (the host sets it to the session's files/).
func CheckEnv(env []string) error {
	if len(env) > MaxEnvVars {
		return fmt.Errorf("%w: %d variables, at most %d", ErrBadEnv, len(env), MaxEnvVars)
	}
	size := 0
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		size += len(name) + len(value)
		switch {
		case !ok || !EnvName(name):
			return fmt.Errorf("%w: %.40q is not NAME=VALUE", ErrBadEnv, kv)
		case name == "HOME":
			return fmt.Errorf("%w: HOME is the session's", ErrBadEnv)
		case strings.IndexByte(value, 0) >= 0:
			return fmt.Errorf("%w: NUL in %s", ErrBadEnv, name)
		case size > MaxEnvBytes:
			return fmt.Errorf("%w: over %d bytes", ErrBadEnv, MaxEnvBytes)
		}
	}
	return nil
}

// EnvName reports whether name is a shell variable name.
func EnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range []byte(name) {
		letter := c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// StdPath is the PATH a session's code sees, the one OpenSSH's sshd gives
// a login (Debian's default without games): programs look for it, though
// a session may run none of them.
const StdPath = "/usr/local/bin:/usr/bin:/bin"

// interpEnv is the environment the session's code sees: env, then PATH
// (unless env has one), then HOME.
func interpEnv(env []string, home string) []string {
	out := append(make([]string, 0, len(env)+2), env...)
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }) {
		out = append(out, "PATH="+StdPath)
	}
	return append(out, "HOME="+home)
}
