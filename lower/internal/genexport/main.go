// Command genexport writes stdexport.zip: the export data of every public
// standard-library package of the running Go toolchain, so that the lower
// package type-checks cells without a Go toolchain or GOROOT at run time.
//
// Run through `go generate` in the lower package.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

func main() {
	out := "stdexport.zip"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	cmd := exec.Command("go", "list", "-export", "-f", "{{.ImportPath}}\t{{.Export}}", "std")
	cmd.Stderr = os.Stderr
	listed, err := cmd.Output()
	if err != nil {
		log.Fatalf("go list: %v", err)
	}
	var pkgs [][2]string
	sc := bufio.NewScanner(bytes.NewReader(listed))
	for sc.Scan() {
		path, file, ok := strings.Cut(sc.Text(), "\t")
		if !ok || file == "" || !public(path) {
			continue
		}
		pkgs = append(pkgs, [2]string{path, file})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i][0] < pkgs[j][0] })

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range pkgs {
		data, err := exportSection(p[1])
		if err != nil {
			log.Fatalf("%s: %v", p[0], err)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p[0], Method: zip.Deflate})
		if err != nil {
			log.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			log.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d packages, %d bytes\n", out, len(pkgs), buf.Len())
}

// public reports whether a std package can be imported by user code.
func public(path string) bool {
	for _, part := range strings.Split(path, "/") {
		if part == "internal" || part == "vendor" {
			return false
		}
	}
	return !strings.HasPrefix(path, "cmd/")
}

// exportSection keeps only the archive header and the __.PKGDEF member of a
// compiler output file: the export data, without the object code.
func exportSection(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 8+60)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, err
	}
	if string(head[:8]) != "!<arch>\n" || !strings.HasPrefix(string(head[8:]), "__.PKGDEF") {
		return nil, fmt.Errorf("not a Go archive with export data")
	}
	size, err := strconv.Atoi(strings.TrimSpace(string(head[8+48 : 8+58])))
	if err != nil {
		return nil, fmt.Errorf("member size: %v", err)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, err
	}
	return append(head, body...), nil
}
