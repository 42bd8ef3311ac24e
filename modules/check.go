package modules

import (
	"fmt"
	"go/build"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/module"
)

// Checker says which standard packages a session may import; nil allows
// every one but unsafe.
type Checker func(stdPath string) bool

// pkgSet maps the modules of a build list to their cached trees, to find the
// directory of an import path.
type pkgSet struct {
	mods []module.Version
	dirs map[string]string // module path → tree
}

// dirOf returns the directory of importPath in the longest module path that
// holds it.
func (s pkgSet) dirOf(importPath string) (string, bool) {
	best := ""
	for p := range s.dirs {
		if (importPath == p || strings.HasPrefix(importPath, p+"/")) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		return "", false
	}
	return filepath.Join(s.dirs[best], filepath.FromSlash(strings.TrimPrefix(importPath[len(best):], "/"))), true
}

// checkRunnable walks the import closure of roots and refuses what yaegi
// cannot run: cgo, assembly, unsafe (unless allowed) and standard packages
// outside the session's allowlist, naming the package.
func checkRunnable(s pkgSet, roots []string, allowed Checker) error {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", true
	ctx.GOPATH, ctx.GOROOT = "", ""
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		ip := queue[0]
		queue = queue[1:]
		if seen[ip] {
			continue
		}
		seen[ip] = true
		dir, ok := s.dirOf(ip)
		if !ok {
			if isStd(ip) {
				if ip == "C" {
					return fmt.Errorf("package %s uses cgo, which the interpreter cannot run", ip)
				}
				if (allowed == nil && ip == "unsafe") || (allowed != nil && !allowed(ip)) {
					return fmt.Errorf("a package it needs imports %q, which sessions may not import", ip)
				}
				continue
			}
			return fmt.Errorf("package %s is not in any module of the build list", ip)
		}
		pkg, err := ctx.ImportDir(dir, build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return fmt.Errorf("package %s: no Go files", ip)
			}
			return fmt.Errorf("package %s: %w", ip, err)
		}
		switch {
		case len(pkg.CgoFiles) > 0:
			return fmt.Errorf("package %s uses cgo (%s), which the interpreter cannot run", ip, pkg.CgoFiles[0])
		case len(pkg.SFiles) > 0:
			return fmt.Errorf("package %s has assembly (%s), which the interpreter cannot run", ip, pkg.SFiles[0])
		}
		for _, imp := range pkg.Imports {
			if imp == "unsafe" && (allowed == nil || !allowed("unsafe")) {
				return fmt.Errorf("package %s imports unsafe, which sessions may not import", ip)
			}
			queue = append(queue, imp)
		}
	}
	return nil
}

// isStd reports whether an import path is a standard package's (no dot in
// its first element), as the go command decides.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// packagesOf lists the import paths of the packages of a module tree, less
// tests, testdata, internal-only command trees and nested modules.
func packagesOf(modPath, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if p != dir && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if p != dir {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, path.Join(modPath, filepath.ToSlash(rel)))
				break
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
