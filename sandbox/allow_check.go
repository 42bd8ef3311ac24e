package sandbox

import (
	"fmt"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
	"github.com/traefik/yaegi/stdlib"
)

// neverAllowed are packages --allow-pkg refuses outright: unsafe and syscall
// would let a cell forge pointers or raw system calls and so step around
// the interpreter's own rules (this allowlist, the hidden protocol socket);
// plugin loads native code; os/exec could only fail (no file may be
// executed). The kernel's confinement would still hold, but
// the host offers nothing it cannot reason about.
var neverAllowed = map[string]string{
	"unsafe":  "it lets code forge pointers and break the interpreter's rules",
	"syscall": "it gives code raw system calls and descriptors",
	"plugin":  "the interpreter cannot load native plugins",
	"os/exec": "sessions cannot run programs (the sandbox forbids executing files)",
}

// CheckAllowPkg validates --allow-pkg entries: each must name a standard
// package the interpreter provides, or a tree ("net/...") holding at least
// one; a typo is an error, never silently nothing.
func CheckAllowPkg(entries []string) error {
	for _, e := range entries {
		base, tree := strings.CutSuffix(e, "/...")
		if why, ok := neverAllowed[base]; ok {
			return fmt.Errorf("--allow-pkg %s: refused: %s", e, why)
		}
		if !stdPackageExists(base, tree) {
			if tree {
				return fmt.Errorf("--allow-pkg %s: no standard package is under %s", e, base)
			}
			return fmt.Errorf("--allow-pkg %s: not a standard package the interpreter provides", e)
		}
	}
	return nil
}

func stdPackageExists(path string, tree bool) bool {
	for key := range stdlib.Symbols {
		p, _, ok := yaegix.SplitKey(key)
		if !ok || strings.HasPrefix(key, "github.com/") {
			continue
		}
		if p == path || (tree && strings.HasPrefix(p, path+"/")) {
			return true
		}
	}
	return false
}
