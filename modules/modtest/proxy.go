// Package modtest builds module proxies for tests: a file-based GOPROXY that
// a test fills with modules, and a checksum database on 127.0.0.1 that signs
// what the proxy held.
package modtest

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/sumdb/note"
	modzip "golang.org/x/mod/zip"
)

// Proxy is a file-based GOPROXY that a test fills with modules, and a
// checksum database on 127.0.0.1 that signs the hashes recorded for them.
type Proxy struct {
	tb   testing.TB
	dir  string
	Sums map[string]string // "path version" → go.sum lines; delete one to make it unknown
	key  string            // verifier key
	url  string            // checksum database URL
}

// New starts a proxy whose files and database live as long as tb.
func New(tb testing.TB) *Proxy {
	tb.Helper()
	p := &Proxy{tb: tb, dir: tb.TempDir(), Sums: map[string]string{}}
	skey, vkey, err := note.GenerateKey(rand.Reader, "sum.test")
	if err != nil {
		tb.Fatal(err)
	}
	db := sumdb.NewTestServer(skey, func(path, vers string) ([]byte, error) {
		if s, ok := p.Sums[path+" "+vers]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("%s@%s: not found", path, vers)
	})
	srv := httptest.NewServer(sumdb.NewServer(db))
	tb.Cleanup(srv.Close)
	p.key, p.url = vkey, srv.URL
	return p
}

// URL is the GOPROXY value.
func (p *Proxy) URL() string { return "file://" + p.dir }

// SumDB is the GOSUMDB value: the verifier key and the database's URL.
func (p *Proxy) SumDB() string { return p.key + " " + p.url }

// Add publishes path@version with the given files (name → content; a go.mod
// is made from requires when files has none) and records its hashes for the
// checksum database.
func (p *Proxy) Add(path, version string, files map[string]string, requires ...string) {
	p.tb.Helper()
	src := p.tb.TempDir()
	if _, ok := files["go.mod"]; !ok {
		mod := "module " + path + "\n\ngo 1.22\n"
		for _, r := range requires {
			mod += "\nrequire " + strings.Replace(r, "@", " ", 1) + "\n"
		}
		files["go.mod"] = mod
	}
	for name, body := range files {
		full := filepath.Join(src, filepath.FromSlash(name))
		must(p.tb, os.MkdirAll(filepath.Dir(full), 0o755))
		must(p.tb, os.WriteFile(full, []byte(body), 0o644))
	}
	esc, err := module.EscapePath(path)
	must(p.tb, err)
	vdir := filepath.Join(p.dir, filepath.FromSlash(esc), "@v")
	must(p.tb, os.MkdirAll(vdir, 0o755))
	m := module.Version{Path: path, Version: version}
	zf, err := os.Create(filepath.Join(vdir, version+".zip"))
	must(p.tb, err)
	must(p.tb, modzip.CreateFromDir(zf, m, src))
	must(p.tb, zf.Close())
	must(p.tb, os.WriteFile(filepath.Join(vdir, version+".mod"), []byte(files["go.mod"]), 0o644))
	must(p.tb, os.WriteFile(filepath.Join(vdir, version+".info"), []byte(`{"Version":"`+version+`"}`), 0o644))
	lf, err := os.OpenFile(filepath.Join(vdir, "list"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	must(p.tb, err)
	fmt.Fprintln(lf, version)
	lf.Close()

	zh, err := dirhash.HashZip(zf.Name(), dirhash.Hash1)
	must(p.tb, err)
	mh, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(files["go.mod"])), nil
	})
	must(p.tb, err)
	p.Sums[path+" "+version] = fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", path, version, zh, path, version, mh)
}

// ReplaceZip swaps the published zip of path@version for one of other files,
// as a compromised proxy would.
func (p *Proxy) ReplaceZip(path, version string, files map[string]string) {
	p.tb.Helper()
	saved := p.Sums[path+" "+version]
	p.Add(path, version, files)
	p.Sums[path+" "+version] = saved
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// PublishGreet puts into p the modules the tests share: example.com/greet
// at v1.0.0 and v1.1.0, each needing its own version of example.com/words
// (v1.0.0, v1.2.0), with a test file and testdata that installs leave out,
// a pre-modules v2.0.0+incompatible, and example.com/cgomod, which needs cgo.
func PublishGreet(p *Proxy) {
	p.Add("example.com/words", "v1.0.0", map[string]string{
		"words.go": "package words\n\nfunc Hello() string { return \"hello\" }\n",
	})
	p.Add("example.com/words", "v1.2.0", map[string]string{
		"words.go": "package words\n\nfunc Hello() string { return \"hi\" }\n",
	})
	p.Add("example.com/greet", "v1.0.0", map[string]string{
		"greet.go":      "package greet\n\nimport \"example.com/words\"\n\nfunc Greet(n string) string { return words.Hello() + \", \" + n }\n",
		"greet_test.go": "package greet\n",
	}, "example.com/words@v1.0.0")
	p.Add("example.com/greet", "v2.0.0+incompatible", map[string]string{"greet.go": "package greet\n"})
	p.Add("example.com/greet", "v1.1.0", map[string]string{
		"greet.go":          "package greet\n\nimport \"example.com/words\"\n\nfunc Greet(n string) string { return words.Hello() + \"! \" + n }\n",
		"testdata/big.json": "{}",
	}, "example.com/words@v1.2.0")
	p.Add("example.com/cgomod", "v1.0.0", map[string]string{
		"c.go": "package cgomod\n\n// int two() { return 2; }\nimport \"C\"\n\nfunc Two() int { return int(C.two()) }\n",
	})
}
