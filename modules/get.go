package modules

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"strings"

	"golang.org/x/mod/module"
)

// Config configures a Fetcher. The zero value of each field says what it means.
type Config struct {
	// Proxy is a GOPROXY list of http(s) or file URLs; "" or "off" disables
	// downloads; "direct" entries are skipped (no VCS fetches on the host).
	Proxy string
	// SumDB is GOSUMDB: "" means sum.golang.org, "off" verifies nothing
	// against a database (hashes are then pinned on first use).
	SumDB string
	// NoSumDB is GONOSUMDB: module path patterns whose hashes are pinned on
	// first use instead of looked up.
	NoSumDB string
	// Cache is the host-wide module cache directory; required.
	Cache string
	// Client makes the HTTP requests; nil means http.DefaultClient.
	Client *http.Client
}

// Fetcher fetches modules for sessions. It is safe for concurrent use.
type Fetcher struct {
	c   *cache
	err error // why downloads are off, or nil
}

// New returns a Fetcher. A disabled proxy is not an error here: every Get
// then says so.
func New(cfg Config) (*Fetcher, error) {
	if cfg.Cache == "" {
		return nil, errors.New("modules: no cache directory")
	}
	if err := os.MkdirAll(cfg.Cache, 0o755); err != nil {
		return nil, fmt.Errorf("modules: %w", err)
	}
	pl, err := parseProxyList(cfg.Proxy, cfg.Client)
	if errors.Is(err, ErrDisabled) {
		return &Fetcher{err: err}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("modules: %w", err)
	}
	v, err := newVerifier(cfg.SumDB, cfg.NoSumDB, cfg.Cache, cfg.Client)
	if err != nil {
		return nil, fmt.Errorf("modules: %w", err)
	}
	return &Fetcher{c: &cache{dir: cfg.Cache, proxy: pl, verify: v}}, nil
}

// Result is what a Get installed.
type Result struct {
	Module module.Version   // the module asked for
	Deps   []module.Version // the rest of its build list
}

func (r Result) String() string {
	s := "added " + r.Module.String()
	if len(r.Deps) > 0 {
		var d []string
		for _, m := range r.Deps {
			d = append(d, m.String())
		}
		s += " (with " + strings.Join(d, ", ") + ")"
	}
	return s
}

// Get fetches spec ("path[@version]", path a module or a package inside
// one) with its dependencies, checks that the interpreter can run it, and
// installs it into classesDir/src. allowed says which standard packages
// the session may import (nil: all but unsafe).
func (f *Fetcher) Get(ctx context.Context, spec, classesDir string, allowed Checker) (Result, error) {
	if f.err != nil {
		return Result{}, f.err
	}
	p, query, _ := strings.Cut(strings.TrimSpace(spec), "@")
	if err := module.CheckImportPath(p); err != nil || isStd(p) {
		return Result{}, fmt.Errorf("%q is not a module path", p)
	}
	main, err := f.findModule(ctx, p, query)
	if err != nil {
		return Result{}, err
	}
	mods, err := f.c.buildList(ctx, main)
	if err != nil {
		return Result{}, err
	}
	set := pkgSet{mods: mods, dirs: map[string]string{}}
	for _, m := range mods {
		if set.dirs[m.Path], err = f.c.tree(ctx, m); err != nil {
			return Result{}, err
		}
	}
	roots := []string{p}
	if p == main.Path {
		if _, err := os.Stat(path.Join(set.dirs[main.Path], "go.mod")); err == nil {
			if pkgs, err := packagesOf(main.Path, set.dirs[main.Path]); err == nil && !contains(pkgs, main.Path) {
				roots = pkgs // no root package: every package of the module
			}
		}
	}
	if err := checkRunnable(set, roots, allowed); err != nil {
		return Result{}, fmt.Errorf("%s: %w", main, err)
	}
	if err := install(classesDir, set); err != nil {
		return Result{}, err
	}
	return Result{Module: main, Deps: mods[1:]}, nil
}

// findModule finds the module that holds import path p: p itself, or the
// longest prefix of it the proxy knows, as `go get` does.
func (f *Fetcher) findModule(ctx context.Context, p, query string) (module.Version, error) {
	var first error
	for mp := p; ; {
		v, err := f.c.resolve(ctx, mp, query)
		if err == nil {
			if _, err = f.c.goMod(ctx, module.Version{Path: mp, Version: v}); err == nil {
				return module.Version{Path: mp, Version: v}, nil
			}
		}
		var nf *notFound
		if !errors.As(err, &nf) {
			return module.Version{}, err
		}
		if first == nil {
			first = err
		}
		i := strings.LastIndex(mp, "/")
		if i < 0 {
			return module.Version{}, fmt.Errorf("%s: no module provides it (%v)", p, first)
		}
		mp = mp[:i]
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
