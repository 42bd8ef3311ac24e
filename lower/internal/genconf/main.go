// Command genconf writes the expected output of every conformance script:
// NAME.out is what `go run` prints for the script wrapped as a program
// (conformance.Program). Run it with `go generate ./lower/conformance`;
// `-run NAME` regenerates matching cases only.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/replhost/replhost/lower/conformance"
)

func main() {
	only := flag.String("run", "", "regexp of case names to regenerate")
	flag.Parse()
	dir := flag.Arg(0)
	re := regexp.MustCompile(*only)
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "genconf")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	failed := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if !re.MatchString(name) {
			continue
		}
		script, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		prog := filepath.Join(tmp, name, "main.go")
		if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(prog, []byte(conformance.Program(string(script))), 0o644); err != nil {
			log.Fatal(err)
		}
		var out, stderr bytes.Buffer
		cmd := exec.Command("go", "run", prog)
		cmd.Dir = filepath.Dir(prog)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n%s", name, err, stderr.String())
			failed++
			continue
		}
		if err := os.WriteFile(strings.TrimSuffix(f, ".txt")+".out", out.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if failed > 0 {
		log.Fatalf("%d cases failed to run", failed)
	}
}
