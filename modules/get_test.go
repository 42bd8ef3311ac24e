package modules

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/modules/modtest"
)

func newFetcher(t *testing.T, p *modtest.Proxy, nosumdb string) *Fetcher {
	t.Helper()
	f, err := New(Config{Proxy: p.URL(), SumDB: p.SumDB(), NoSumDB: nosumdb, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGetTwoSessionsTwoVersions(t *testing.T) {
	p := modtest.New(t)
	modtest.PublishGreet(p)
	f := newFetcher(t, p, "")
	a, b := t.TempDir(), t.TempDir()

	res, err := f.Get(context.Background(), "example.com/greet@v1.0.0", a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.String(), "added example.com/greet@v1.0.0 (with example.com/words@v1.0.0)"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
	// No version: the highest release (not the +incompatible v2, which has
	// no go.mod path of v2 and so is listed but is a pre-modules tag).
	res, err = f.Get(context.Background(), "example.com/greet", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Module.Version; got != "v2.0.0+incompatible" && got != "v1.1.0" {
		t.Fatalf("latest: got %s", got)
	}
	if _, err := f.Get(context.Background(), "example.com/greet@v1.1.0", b, nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(a, "src/example.com/greet/greet.go")); !strings.Contains(got, `", "`) {
		t.Errorf("session a has greet %q; want v1.0.0", got)
	}
	if got := readFile(t, filepath.Join(b, "src/example.com/greet/greet.go")); !strings.Contains(got, `"! "`) {
		t.Errorf("session b has greet %q; want v1.1.0", got)
	}
	if got := readFile(t, filepath.Join(a, "src/example.com/words/words.go")); !strings.Contains(got, "hello") {
		t.Errorf("session a has words %q; want v1.0.0", got)
	}
	if got := readFile(t, filepath.Join(b, "src/example.com/words/words.go")); !strings.Contains(got, `"hi"`) {
		t.Errorf("session b has words %q; want v1.2.0 (MVS)", got)
	}
	for _, gone := range []string{"src/example.com/greet/greet_test.go", "src/example.com/greet/testdata", ".get-staging"} {
		if _, err := os.Lstat(filepath.Join(a, gone)); err == nil {
			t.Errorf("%s installed; want left out", gone)
		}
		if _, err := os.Lstat(filepath.Join(b, gone)); err == nil {
			t.Errorf("%s installed; want left out", gone)
		}
	}
	// The host-wide cache holds each version once, read-only.
	fi, err := os.Stat(filepath.Join(f.c.dir, "mod/example.com/greet@v1.0.0/greet.go"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Errorf("cache file mode %v; want read-only", fi.Mode())
	}
}

func TestGetPackagePathFindsItsModule(t *testing.T) {
	p := modtest.New(t)
	p.Add("example.com/tools", "v0.3.0", map[string]string{
		"strs/strs.go": "package strs\n\nfunc Rev(s string) string { return s }\n",
	})
	f := newFetcher(t, p, "")
	res, err := f.Get(context.Background(), "example.com/tools/strs@v0.3.0", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Module.String(); got != "example.com/tools@v0.3.0" {
		t.Errorf("got %s; want example.com/tools@v0.3.0", got)
	}
}

func TestGetRefusesWhatTheInterpreterCannotRun(t *testing.T) {
	p := modtest.New(t)
	p.Add("example.com/cgomod", "v1.0.0", map[string]string{
		"c.go": "package cgomod\n\n// int two() { return 2; }\nimport \"C\"\n\nfunc Two() int { return int(C.two()) }\n",
	})
	p.Add("example.com/asm", "v1.0.0", map[string]string{
		"add.go":       "package asm\n\nfunc Add(a, b int) int\n",
		"add_amd64.s":  "TEXT ·Add(SB),4,$0\n RET\n",
		"add_other.go": "//go:build !amd64\n\npackage asm\n",
	})
	p.Add("example.com/unsafe", "v1.0.0", map[string]string{
		"u.go": "package unsafe\n\nimport \"unsafe\"\n\nvar P = unsafe.Pointer(nil)\n",
	})
	p.Add("example.com/uses", "v1.0.0", map[string]string{
		"uses.go": "package uses\n\nimport _ \"example.com/cgomod\"\n",
	}, "example.com/cgomod@v1.0.0")
	f := newFetcher(t, p, "")
	for _, tc := range []struct{ spec, want string }{
		{"example.com/cgomod@v1.0.0", "package example.com/cgomod uses cgo"},
		{"example.com/asm@v1.0.0", "package example.com/asm has assembly"},
		{"example.com/unsafe@v1.0.0", "package example.com/unsafe imports unsafe"},
		{"example.com/uses@v1.0.0", "package example.com/cgomod uses cgo"},
	} {
		dir := t.TempDir()
		_, err := f.Get(context.Background(), tc.spec, dir, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want an error with %q", tc.spec, err, tc.want)
		}
		if _, err := os.Lstat(filepath.Join(dir, "src")); err == nil {
			t.Errorf("%s: refused, but something was installed", tc.spec)
		}
	}
	// Allowed by the session's list, unsafe goes through.
	if _, err := f.Get(context.Background(), "example.com/unsafe@v1.0.0", t.TempDir(),
		func(p string) bool { return true }); err != nil {
		t.Errorf("unsafe allowed: %v", err)
	}
	// A standard package the allowlist refuses is named.
	p.Add("example.com/runner", "v1.0.0", map[string]string{
		"r.go": "package runner\n\nimport _ \"os/exec\"\n",
	})
	_, err := f.Get(context.Background(), "example.com/runner@v1.0.0", t.TempDir(),
		func(p string) bool { return p != "os/exec" })
	if err == nil || !strings.Contains(err.Error(), `"os/exec"`) {
		t.Errorf("os/exec: got %v; want it named", err)
	}
}

func TestGetVerifiesChecksums(t *testing.T) {
	p := modtest.New(t)
	modtest.PublishGreet(p)
	// The proxy serves other bytes than the checksum database knows.
	p.ReplaceZip("example.com/words", "v1.0.0", map[string]string{
		"words.go": "package words\n\nfunc Hello() string { return \"pwned\" }\n",
	})
	f := newFetcher(t, p, "")
	dir := t.TempDir()
	_, err := f.Get(context.Background(), "example.com/greet@v1.0.0", dir, nil)
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("got %v; want a checksum mismatch", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "src")); err == nil {
		t.Error("a module failed verification, but something was installed")
	}
}

func TestGetPinsPrivateModulesOnFirstUse(t *testing.T) {
	p := modtest.New(t)
	p.Add("corp.example/lib", "v1.0.0", map[string]string{"lib.go": "package lib\n"})
	delete(p.Sums, "corp.example/lib v1.0.0") // the public database does not know it
	cache := t.TempDir()
	cfg := Config{Proxy: p.URL(), SumDB: p.SumDB(), NoSumDB: "corp.example", Cache: cache}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get(context.Background(), "corp.example/lib@v1.0.0", t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	// The same version with other bytes, into a fresh cache with the pins kept.
	p.Add("corp.example/lib", "v1.0.0", map[string]string{"lib.go": "package lib\n\nvar X = 1\n"})
	delete(p.Sums, "corp.example/lib v1.0.0")
	os.RemoveAll(filepath.Join(cache, "mod"))
	f, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Get(context.Background(), "corp.example/lib@v1.0.0", t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "first seen as") {
		t.Errorf("got %v; want a mismatch with the pinned hash", err)
	}
	// Without GONOSUMDB, the database is asked and does not know it.
	cfg.NoSumDB, cfg.Cache = "", t.TempDir()
	f, _ = New(cfg)
	if _, err := f.Get(context.Background(), "corp.example/lib@v1.0.0", t.TempDir(), nil); err == nil {
		t.Error("a module unknown to the checksum database was accepted")
	}
}

func TestGetErrors(t *testing.T) {
	p := modtest.New(t)
	modtest.PublishGreet(p)
	f := newFetcher(t, p, "")
	for _, tc := range []struct{ spec, want string }{
		{"fmt", "not a module path"},
		{"example.com/greet@master", "want a version like v1.2.3"},
		{"example.com/nothing@v1.0.0", "no module provides it"},
		{"../etc@v1.0.0", "not a module path"},
	} {
		if _, err := f.Get(context.Background(), tc.spec, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want %q", tc.spec, err, tc.want)
		}
	}
	off, err := New(Config{Proxy: "off", Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := off.Get(context.Background(), "example.com/greet", t.TempDir(), nil); !errors.Is(err, ErrDisabled) {
		t.Errorf("off: got %v; want ErrDisabled", err)
	}
	if _, err := New(Config{Proxy: "ftp://x", Cache: t.TempDir()}); err == nil {
		t.Error("ftp proxy accepted")
	}
}

func TestInstallNeverWritesThroughALink(t *testing.T) {
	p := modtest.New(t)
	modtest.PublishGreet(p)
	f := newFetcher(t, p, "")
	classes, outside := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(classes, "src"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(classes, "src", "example.com")))
	must(t, os.Symlink(outside, filepath.Join(classes, ".get-staging")))
	_, err := f.Get(context.Background(), "example.com/greet@v1.0.0", classes, nil)
	if err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("got %v; want a refusal to go through the link", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote %d entries through a planted link", len(ents))
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
