package sandbox

import (
	"reflect"
	"sort"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// denied are the standard packages a session cannot import unless the host
// allows them with --allow-pkg: they reach the process, the network or the
// runtime's own limits. A trailing "/..." also denies the subpackages.
var denied = []string{
	"os/exec", "os/signal", "syscall", "unsafe", "plugin", "runtime/debug",
	"net/...", "crypto/tls", "log/syslog", "expvar",
}

// pure are packages under a denied tree that do no I/O by themselves:
// allowed by default (the sandbox, not the allowlist, stops sockets).
var pure = []string{"net/url", "net/netip"}

// inWorker are denied packages a session's worker process allows: their
// knobs (runtime/debug's memory limit, GC percent, max stack and threads)
// act on the process that calls them, which in process isolation is the
// session's own worker, still bounded by its cgroup. In inproc mode they
// would change the host for every session (docs/confinement.md).
var inWorker = []string{"runtime/debug"}

// deniedSymbols are members of allowed packages that reach other
// processes (Landlock blocks them in a worker, nothing would in-process)
// or turn a number into a descriptor or a pointer: os.NewFile(3, "") would
// be the worker's protocol socket, and reflect.NewAt writes any memory (the
// descriptor inside an *os.File). With them gone no symbol the code sees
// takes a descriptor number (TestNoSymbolTakesADescriptor checks every
// table): Fd and SyscallConn of a file only tell the code its own numbers.
// An --allow-pkg of syscall or unsafe gives all of this back.
var deniedSymbols = map[string][]string{
	"os/os":           {"StartProcess", "FindProcess", "NewFile"},
	"reflect/reflect": {"NewAt"},
	"net/net":         {"FileConn", "FileListener", "FilePacketConn"},
	// A heap dump to a descriptor number (the protocol socket, if
	// guessed), and crash output to a file of the code's choosing.
	"runtime/debug/debug": {"WriteHeapDump", "SetCrashOutput"},
}

// hostExits are compiled functions that call os.Exit themselves: in a
// worker that ends the session's process, which the host takes for the
// script's exit; in the host (inproc mode) it would end the host.
var hostExits = map[string][]string{
	"testing/testing": {"Main"},
}

func without(syms map[string]reflect.Value, drop []string) map[string]reflect.Value {
	out := make(map[string]reflect.Value, len(syms))
	for k, v := range syms {
		out[k] = v
	}
	for _, d := range drop {
		delete(out, d)
	}
	return out
}

// Allowlist says which standard packages a session may import.
type Allowlist struct {
	extra  []string
	worker bool // the session runs in a worker process of its own: inWorker too
}

// NewAllowlist returns the default allowlist plus the extra packages; an
// entry ending in "/..." also allows the subpackages ("net/...").
func NewAllowlist(extra []string) Allowlist {
	return Allowlist{extra: append([]string(nil), extra...)}
}

// InWorker returns the allowlist of a session whose code runs in a worker
// process of its own: a also allows the packages whose effects stay in
// that process (runtime/debug).
func (a Allowlist) InWorker() Allowlist {
	a.worker = true
	return a
}

// Allowed reports whether the standard package path may be imported.
func (a Allowlist) Allowed(path string) bool {
	for _, p := range a.extra {
		if matchPkg(p, path) {
			return true
		}
	}
	for _, p := range pure {
		if p == path {
			return true
		}
	}
	if a.worker {
		for _, p := range inWorker {
			if p == path {
				return true
			}
		}
	}
	for _, p := range denied {
		if matchPkg(p, path) {
			return false
		}
	}
	return true
}

// Denied reports whether path is a standard package this allowlist refuses.
// Paths that are not standard packages (uploaded ones) are never denied here.
func (a Allowlist) Denied(path string) bool {
	if !isStdPath(path) {
		return false
	}
	return !a.Allowed(path)
}

func matchPkg(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return pattern == path
}

// isStdPath reports whether path looks like a standard library path: its
// first element has no dot, as the go command decides.
func isStdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && path != "udf"
}

// Exports returns the symbol tables of the allowed standard packages, keyed
// the way interp.Use wants ("fmt/fmt").
func (a Allowlist) Exports() interp.Exports {
	out := interp.Exports{}
	for key, syms := range stdlib.Symbols {
		if key == yaegix.WrappersKey {
			out[key] = syms
			continue
		}
		path, _, ok := yaegix.SplitKey(key)
		if !ok || strings.HasPrefix(key, "github.com/traefik/yaegi") {
			continue
		}
		if !a.Allowed(path) {
			continue
		}
		if drop := deniedSymbols[key]; drop != nil {
			syms = without(syms, drop)
		}
		if drop := hostExits[key]; drop != nil && !a.worker {
			syms = without(syms, drop)
		}
		out[key] = syms
	}
	return out
}

// packageMembers lists the exported names of an allowed package, sorted, for
// completion.
func packageMembers(exports interp.Exports, path string) []string {
	for key, syms := range exports {
		if p, _, ok := yaegix.SplitKey(key); !ok || p != path {
			continue
		}
		names := make([]string, 0, len(syms))
		for name := range syms {
			if yaegix.IsWrapperName(name) {
				continue
			}
			names = append(names, name)
		}
		sort.Strings(names)
		return names
	}
	return nil
}
