package yaegix

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// fixedPackages are the packages whose tables yaegi v0.16.1 writes to
// after Use (fixStdlib binds them to the interpreter's stdio, args and
// environment): an interpreter needs its own copy of these.
var fixedPackages = map[string]bool{"fmt": true, "flag": true, "log": true, "os": true, "math/bits": true}

// UseShared is UseWithoutGenerics of each of tables in order, except that a
// package's table is recorded in yi as it is instead of copied, when yaegi
// never writes to it (fixedPackages), no other of tables holds that
// package, and yi has none yet: yaegi's Use copies every symbol into a map
// of the interpreter's (~0.4 MiB for the standard library), which is
// worth it only for tables that change. The caller must not write to a
// table it gives here for as long as yi lives; sharing one among several
// interpreters is fine, as yaegi only reads them.
func UseShared(yi *interp.Interpreter, tables ...interp.Exports) error {
	binPkg, pkgNames, err := packageMaps(yi)
	if err != nil {
		return err
	}
	seen := map[string]int{}
	for _, t := range tables {
		for key := range t {
			if path, _, ok := shareable(key); ok {
				seen[path]++
			}
		}
	}
	for _, t := range tables {
		rest := interp.Exports{}
		for key, syms := range t {
			path, name, ok := shareable(key)
			if !ok || seen[path] != 1 || binPkg[path] != nil || syms == nil {
				rest[key] = syms
				continue
			}
			binPkg[path] = syms
			pkgNames[path] = name
		}
		if err := UseWithoutGenerics(yi, rest); err != nil {
			return err
		}
	}
	return nil
}

// shareable splits key into a package's path and name when UseShared may
// record its table as it is: a package (not yaegi's wrappers, not yaegi's
// own packages, which Use treats apart) that yaegi does not write to.
func shareable(key string) (path, name string, ok bool) {
	path, name, ok = SplitKey(key)
	if !ok || fixedPackages[path] || strings.HasPrefix(path, "github.com/traefik/yaegi") {
		return "", "", false
	}
	return path, name, true
}

// packageMaps returns yi's unexported binPkg (the symbol tables by import
// path) and pkgNames (package names by import path), the maps yaegi's Use
// fills, checked against yaegi v0.16.1's layout.
func packageMaps(yi *interp.Interpreter) (interp.Exports, map[string]string, error) {
	v := reflect.ValueOf(yi).Elem()
	bin := v.FieldByName("binPkg")
	names := v.FieldByName("pkgNames")
	if !bin.IsValid() || bin.Type() != reflect.TypeOf(interp.Exports{}) {
		return nil, nil, fmt.Errorf("%w: field binPkg", ErrLayout)
	}
	if !names.IsValid() || names.Type() != reflect.TypeOf(map[string]string{}) {
		return nil, nil, fmt.Errorf("%w: field pkgNames", ErrLayout)
	}
	return *(*interp.Exports)(unsafe.Pointer(bin.UnsafeAddr())), *(*map[string]string)(unsafe.Pointer(names.UnsafeAddr())), nil
}
