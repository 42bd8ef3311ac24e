// Command replhost is a multi-user Go REPL host served over SSH.
//
//	replhost [serve] [flags]          run the host (the default)
//	replhost user add|ls|rm ...       manage users
//	replhost sessions --all           list a running host's sessions
//	replhost kill UUID                kill a session of a running host
//	replhost drain --node NAME        hand a cluster node's sessions off
//	replhost version                  module version and commit
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/replhost/replhost/internal/bench"
	"github.com/replhost/replhost/sandbox"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches the subcommand and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "--version" || a == "-version":
			cmd, args = "version", args[1:]
		case a == "--help" || a == "-help" || a == "-h":
			cmd, args = "help", args[1:]
		case a != "" && a[0] != '-':
			cmd, args = a, args[1:]
		}
	}
	switch cmd {
	case "serve":
		return serve(args, stdout, stderr)
	case "user":
		return userCmd(args, stdout, stderr)
	case "sessions":
		return sessionsCmd(args, stdout, stderr)
	case "kill":
		return killCmd(args, stdout, stderr)
	case "drain":
		return drainCmd(args, stdout, stderr)
	case "version":
		return versionCmd(args, stdout, stderr)
	case "worker":
		// Hidden: the host starts itself again as each session's worker.
		return sandbox.WorkerMain()
	case "bench":
		return bench.Main(args, stdout, stderr)
	case "help":
		return helpCmd(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "replhost: unknown command %q\n%s", cmd, usage)
		return 2
	}
}

// helpCmd prints the overview, or with a command's name its help.
func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if args[0] == "help" || args[0] == "worker" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	return run(append(args, "--help"), stdout, stderr)
}

const usage = `usage:
  replhost [serve] [flags]                      run the host
  replhost user add [--admin] NAME PUBKEY_FILE  add a user (or a key of it); PUBKEY_FILE "-" reads stdin
  replhost user ls                              list users
  replhost user rm [--node NODE] NAME           remove a user and end its sessions (every node)
  replhost sessions --all                       list every session of the running host
  replhost kill UUID                            kill a session of the running host
  replhost drain --node NAME                    hand a cluster node's sessions off to the others
  replhost version                              print the version and commit
  replhost bench [flags]                        measure beside OpenSSH sshd + the yaegi CLI (docs/bench.md)
each takes --root DIR (default ./replhost-root, or $REPLHOST_ROOT) and --help;
flags may come before or after the arguments
`
