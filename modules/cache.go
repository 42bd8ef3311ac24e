package modules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// cache is the host-wide module cache: each module version's go.mod and
// extracted tree, read-only, kept once for every session:
//
//	DIR/mod/<escaped path>@<escaped version>/     the module's files (0444, dirs 0555)
//	DIR/mod/<escaped path>@<escaped version>.mod  its verified go.mod
//	DIR/pins.sum, DIR/sumdb/                      the verifier's records
//
// A tree appears whole (extracted beside, then renamed) or not at all.
type cache struct {
	dir    string
	proxy  proxyList
	verify *verifier

	mu    sync.Mutex // guards locks
	locks map[string]*sync.Mutex
}

// lock serialises the downloads of one module version.
func (c *cache) lock(key string) func() {
	c.mu.Lock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	l := c.locks[key]
	if l == nil {
		l = new(sync.Mutex)
		c.locks[key] = l
	}
	c.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (c *cache) base(m module.Version) (string, error) {
	p, err := module.EscapePath(m.Path)
	if err != nil {
		return "", err
	}
	v, err := module.EscapeVersion(m.Version)
	if err != nil {
		return "", err
	}
	return filepath.Join(c.dir, "mod", filepath.FromSlash(p)+"@"+v), nil
}

// goMod returns m's verified go.mod.
func (c *cache) goMod(ctx context.Context, m module.Version) ([]byte, error) {
	base, err := c.base(m)
	if err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(base + ".mod"); err == nil {
		return b, nil
	}
	defer c.lock(m.String() + ".mod")()
	if b, err := os.ReadFile(base + ".mod"); err == nil {
		return b, nil
	}
	esc, err := module.EscapeVersion(m.Version)
	if err != nil {
		return nil, err
	}
	b, err := c.proxy.fetch(ctx, m.Path, esc+".mod", maxMod)
	if err != nil {
		return nil, fmt.Errorf("%s: go.mod: %w", m, err)
	}
	h, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(string(b))), nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.verify.check(m, "go.mod", h); err != nil {
		return nil, err
	}
	if err := writeAtomic(base+".mod", b); err != nil {
		return nil, err
	}
	return b, nil
}

// tree returns the directory of m's extracted, verified files.
func (c *cache) tree(ctx context.Context, m module.Version) (string, error) {
	dir, err := c.base(m)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, nil
	}
	defer c.lock(m.String())()
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	zipFile, err := c.download(ctx, m, filepath.Dir(dir))
	if err != nil {
		return "", err
	}
	defer os.Remove(zipFile)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-unzip-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	// Unzip checks every name, size and file mode (x/mod's rules, the go
	// command's): nothing can land outside tmp.
	if err := modzip.Unzip(tmp, m, zipFile); err != nil {
		return "", fmt.Errorf("%s: %w", m, err)
	}
	if err := readOnly(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// download fetches m's zip into a temporary file in dir and verifies it.
func (c *cache) download(ctx context.Context, m module.Version, dir string) (string, error) {
	esc, err := module.EscapeVersion(m.Version)
	if err != nil {
		return "", err
	}
	b, err := c.proxy.fetch(ctx, m.Path, esc+".zip", maxZip)
	if err != nil {
		return "", fmt.Errorf("%s: zip: %w", m, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-zip-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(name)
		return "", werr
	}
	h, err := dirhash.HashZip(name, dirhash.Hash1)
	if err == nil {
		err = c.verify.check(m, "zip", h)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// readOnly makes a tree read-only for everyone: sessions read the cache,
// nobody changes it.
func readOnly(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		if !d.Type().IsRegular() {
			return errors.New(p + ": not a regular file")
		}
		return os.Chmod(p, 0o444)
	})
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		err = os.Chmod(dirs[i], 0o555)
	}
	return err
}
