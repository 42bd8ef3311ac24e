// Command yaegicli runs the conformance suite through the plain `yaegi` CLI,
// for comparison with the front end: each script wrapped as a program
// (conformance.Program) is run with `YAEGI run FILE`, in its own process,
// and its stdout compared with what `go run` printed. It prints the
// failures and pass/total.
//
//	GOBIN=/tmp/yaegi-bin go install github.com/traefik/yaegi/cmd/yaegi@v0.16.1
//	go run ./lower/internal/yaegicli -yaegi /tmp/yaegi-bin/yaegi lower/testdata/conformance
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/replhost/replhost/lower/conformance"
)

func main() {
	yaegi := flag.String("yaegi", "yaegi", "the yaegi CLI")
	timeout := flag.Duration("timeout", 20*time.Second, "limit per case")
	flag.Parse()
	cases, err := conformance.Load(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "yaegicli")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	results := conformance.Run(cases, func(script string) (string, error) {
		prog := filepath.Join(tmp, "main.go")
		if err := os.WriteFile(prog, []byte(conformance.Program(script)), 0o644); err != nil {
			return "", err
		}
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		var out, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, *yaegi, "run", prog)
		cmd.Dir = tmp
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			if msg == "" {
				msg = err.Error()
			}
			return out.String(), errors.New(msg)
		}
		return out.String(), nil
	})
	for _, r := range results {
		if !r.Pass() {
			fmt.Printf("FAIL %s: %s\n", r.Case.Name, r.Reason())
		}
	}
	fmt.Printf("yaegi CLI: %d/%d cases pass\n", conformance.Passed(results), len(results))
}
