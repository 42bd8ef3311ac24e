package main

import (
	"fmt"
	"io"
	"time"

	"github.com/replhost/replhost/admin"
)

// sessionsCmd lists every session of the host running on --root.
func sessionsCmd(args []string, stdout, stderr io.Writer) int {
	const use = "replhost sessions --all"
	fs := newFlagSet("replhost sessions", use, stdout, stderr)
	root := rootFlag(fs)
	node := nodeFlag(fs)
	fs.Bool("all", true, "every user's sessions (the only listing the host side has)")
	rest, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "replhost: usage: %s\n", use)
		return 2
	}
	c, err := admin.Dial(adminDir(*root, *node))
	if err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return 1
	}
	list, err := c.Sessions()
	if err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return 1
	}
	for _, s := range list {
		fmt.Fprintf(stdout, "%s %s %s %s %s\n", s.ID, s.Owner, s.State,
			s.Created.UTC().Format(time.RFC3339), s.LastUsed.UTC().Format(time.RFC3339))
	}
	return 0
}

// killCmd kills a session of the host running on --root, whoever owns it.
func killCmd(args []string, stdout, stderr io.Writer) int {
	const use = "replhost kill UUID"
	fs := newFlagSet("replhost kill", use, stdout, stderr)
	root := rootFlag(fs)
	node := nodeFlag(fs)
	rest, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		fmt.Fprintf(stderr, "replhost: usage: %s\n", use)
		return 2
	}
	c, err := admin.Dial(adminDir(*root, *node))
	if err == nil {
		err = c.Kill(rest[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "replhost: kill: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "killed session %s\n", rest[0])
	return 0
}
