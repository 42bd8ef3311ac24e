package testhost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"sort"
	"testing"
)

// GreetPackage is the source of a package greet whose Hello says word: the
// package the artifact tests upload, with different words per session.
func GreetPackage(word string) string {
	return fmt.Sprintf("package greet\n\nfunc Hello(name string) string { return %q + \", \" + name }\n", word)
}

// TarGz is a .tar.gz holding files (name → content), in name order.
func TarGz(tb testing.TB, files map[string]string) string {
	tb.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range names {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			tb.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.String()
}
