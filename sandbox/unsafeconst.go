package sandbox

import "strconv"

// Package unsafe is denied by default, but unsafe.Sizeof, Alignof and
// Offsetof are compile-time constants that read no memory: the front end
// writes them as their values (gc's amd64 layout) and drops the import
// (lower/unsafeconst.go), and refuses any other use with an
// *lower.UnsafeError, which lowerCell turns into the import's refusal. The
// import check leaves unsafe to it; checkUnsafeLeft refuses a cell the
// front end left as it was (a limitation, or not lowered) that still
// imports unsafe, with the same line as before.

// foldsUnsafe reports whether the front end decides on imports of unsafe:
// the package is denied and the cell is lowered.
func (in *Interp) foldsUnsafe() bool {
	return in.lower != nil && in.allow.Denied("unsafe")
}

// checkUnsafeLeft refuses, at its import in the cell (units of cell, run
// of the code the interpreter will get), a denied unsafe that the code to
// run still imports.
func (in *Interp) checkUnsafeLeft(cell, run []unit) error {
	if !in.foldsUnsafe() || !importsPath(run, "unsafe") {
		return nil
	}
	for i := range cell {
		u := &cell[i]
		specs, _ := u.importSpecs()
		for _, spec := range specs {
			if path, _ := strconv.Unquote(spec.Path.Value); path == "unsafe" {
				line, col := u.userPos(spec.Path.Pos())
				return errorAt(line, col, deniedMsg("unsafe"))
			}
		}
	}
	return errorAt(0, 0, deniedMsg("unsafe")) // the front end added it
}

// importsPath reports whether one of units imports path.
func importsPath(units []unit, path string) bool {
	for i := range units {
		specs, _ := units[i].importSpecs()
		for _, spec := range specs {
			if p, _ := strconv.Unquote(spec.Path.Value); p == path {
				return true
			}
		}
	}
	return false
}
