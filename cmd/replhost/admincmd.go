package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/replhost/replhost/admin"
)

// adminCommand is the start every admin command shares: it parses --root,
// --node and the flags extra adds, checks the arguments with valid, and
// dials the admin socket they name. When ok is false the command is over
// (help, usage, or no host to talk to) and code is its exit status.
func adminCommand(name, use string, args []string, stdout, stderr io.Writer,
	extra func(*flag.FlagSet), valid func(rest []string, node string) bool,
) (c *admin.Client, rest []string, node string, code int, ok bool) {
	fs := newFlagSet("replhost "+name, use, stdout, stderr)
	root := rootFlag(fs)
	nodeName := nodeFlag(fs)
	if extra != nil {
		extra(fs)
	}
	rest, code, ok = parseCommand(fs, args, stderr)
	if !ok {
		return nil, nil, "", code, false
	}
	if !valid(rest, *nodeName) {
		fmt.Fprintf(stderr, "replhost: usage: %s\n", use)
		return nil, nil, "", 2, false
	}
	c, err := admin.Dial(adminDir(*root, *nodeName))
	if err != nil {
		fmt.Fprintf(stderr, "replhost: %s: %v\n", name, err)
		return nil, nil, "", 1, false
	}
	return c, rest, *nodeName, 0, true
}

// nodeFlag adds --node to an admin command: the cluster node whose admin
// socket (ROOT/nodes/NAME/admin.sock) it talks to.
func nodeFlag(fs *flag.FlagSet) *string {
	return fs.String("node", "", "cluster node to talk to (its admin socket is ROOT/nodes/NAME/admin.sock); empty: the single host of --root")
}

// adminDir is where the admin socket of root's host, or of its node, is.
func adminDir(root, node string) string {
	if node == "" {
		return root
	}
	return nodeDir(root, node)
}
