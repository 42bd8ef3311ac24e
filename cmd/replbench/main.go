// Command replbench measures replhost side by side with OpenSSH's sshd
// running the yaegi CLI as ForceCommand; see docs/bench.md.
//
//	go run ./cmd/replbench              # the table, both servers started here
//	go run ./cmd/replbench --quick      # a tiny pass
//	go run ./cmd/replbench --load 100,500,1000 --load-duration 60s
//	go run ./cmd/replbench --soak 10m
package main

import (
	"os"

	"github.com/replhost/replhost/internal/bench"
)

func main() {
	os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr))
}
