// Command replhost is a multi-user Go REPL host served over SSH.
//
//	replhost [serve] [flags]      run the host (the default)
//	replhost user add NAME PUBKEY_FILE | user ls | user rm NAME
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/replhost/replhost/sandbox"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches the subcommand and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdout, stderr)
	case "user":
		return userCmd(args, stdout, stderr)
	case "worker":
		// Hidden: the host starts itself again as each session's worker.
		return sandbox.WorkerMain()
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "replhost: unknown command %q\n%s", cmd, usage)
		return 2
	}
}

const usage = `usage:
  replhost [serve] [flags]             run the host (replhost serve --help lists the flags)
  replhost user add NAME PUBKEY_FILE   add a user (or a key of it); PUBKEY_FILE "-" reads stdin
  replhost user ls                     list users
  replhost user rm NAME                remove a user
each takes --root DIR (default ./replhost-root, or $REPLHOST_ROOT)
`
