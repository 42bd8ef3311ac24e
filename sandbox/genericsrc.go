package sandbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
)

// ensureGenerics compiles yaegi's generic sources (cmp, maps, slices) into
// the interpreter before the first code that may reach them (src, split
// into units): NewInterp leaves them out, they were ~0.8 MiB of every
// session's heap, and the typed front end rewrites most uses of them away.
// Called with mu held.
func (in *Interp) ensureGenerics(src string, units []unit) (err error) {
	if in.genericsDone {
		return nil
	}
	var paths []string
	for i := range units {
		specs, _ := units[i].importSpecs()
		for _, spec := range specs {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil {
				paths = append(paths, p)
			}
		}
	}
	if !yaegix.MayUseGenerics(src, paths, binaryPackage) {
		return nil
	}
	in.genericsDone = true
	defer func() {
		if r := recover(); r != nil {
			err = &EvalError{Msg: fmt.Sprintf("interpreter: compile the generic packages: %v", r)}
		}
	}()
	return yaegix.CompileGenerics(in.yi)
}

// binaryPackage reports whether path is one of the interpreter's Go
// packages (the standard ones, the udf package, the front end's and the
// result helper's replhost.internal/...), not source yaegi would compile.
func binaryPackage(path string) bool {
	return stdPaths()[path] || path == "udf" || strings.HasPrefix(path, "replhost.internal/")
}
