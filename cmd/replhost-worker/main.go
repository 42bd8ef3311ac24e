// Command replhost-worker is a session's worker process, which replhost
// starts (sandbox.WorkerMain) in place of itself when this binary sits
// beside it: the same worker as `replhost worker`, without the host's
// packages (the etcd client, gRPC, protobuf, prometheus), whose package
// init would run in every worker (docs/memory.md). Install both from one
// build: go install ./cmd/...
package main

import (
	"fmt"
	"os"

	"github.com/replhost/replhost/sandbox"
)

func main() {
	// The host passes "worker", as to replhost itself.
	if len(os.Args) > 2 || len(os.Args) == 2 && os.Args[1] != "worker" {
		fmt.Fprintln(os.Stderr, "replhost-worker: takes no arguments; replhost starts it as a session's worker")
		os.Exit(2)
	}
	os.Exit(sandbox.WorkerMain())
}
