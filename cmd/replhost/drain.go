package main

import (
	"fmt"
	"io"
)

// drainCmd tells the cluster node NAME running on --root to hand its
// sessions off: no new sessions are placed on it, detached ones are
// released at once (another node restores each on its next use), attached
// ones at their next detach. The node keeps serving until it is stopped.
func drainCmd(args []string, stdout, stderr io.Writer) int {
	c, _, node, code, ok := adminCommand("drain", "replhost drain --node NAME", args, stdout, stderr, nil,
		func(rest []string, node string) bool { return len(rest) == 0 && node != "" })
	if !ok {
		return code
	}
	n, err := c.Drain()
	if err != nil {
		fmt.Fprintf(stderr, "replhost: drain: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "node %s draining: %d detached sessions handed off; attached ones follow at their next detach\n", node, n)
	return 0
}
