package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/replhost/replhost/admin"
)

// drainCmd tells the cluster node NAME running on --root to hand its
// sessions off: no new sessions are placed on it, detached ones are
// released at once (another node restores each on its next use), attached
// ones at their next detach. The node keeps serving until it is stopped.
func drainCmd(args []string, stdout, stderr io.Writer) int {
	const use = "replhost drain --node NAME"
	fs := newFlagSet("replhost drain", use, stdout, stderr)
	root := rootFlag(fs)
	node := nodeFlag(fs)
	rest, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 || *node == "" {
		fmt.Fprintf(stderr, "replhost: usage: %s\n", use)
		return 2
	}
	c, err := admin.Dial(nodeDir(*root, *node))
	if err != nil {
		fmt.Fprintf(stderr, "replhost: drain: %v\n", err)
		return 1
	}
	n, err := c.Drain()
	if err != nil {
		fmt.Fprintf(stderr, "replhost: drain: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "node %s draining: %d detached sessions handed off; attached ones follow at their next detach\n", *node, n)
	return 0
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
