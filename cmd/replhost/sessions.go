package main

import (
	"flag"
	"fmt"
	"io"
	"time"
)

// sessionsCmd lists every session of the host running on --root.
func sessionsCmd(args []string, stdout, stderr io.Writer) int {
	all := func(fs *flag.FlagSet) {
		fs.Bool("all", true, "every user's sessions (the only listing the host side has)")
	}
	c, _, _, code, ok := adminCommand("sessions", "replhost sessions --all", args, stdout, stderr, all,
		func(rest []string, _ string) bool { return len(rest) == 0 })
	if !ok {
		return code
	}
	list, err := c.Sessions()
	if err != nil {
		fmt.Fprintf(stderr, "replhost: sessions: %v\n", err)
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
	c, rest, _, code, ok := adminCommand("kill", "replhost kill UUID", args, stdout, stderr, nil,
		func(rest []string, _ string) bool { return len(rest) == 1 })
	if !ok {
		return code
	}
	if err := c.Kill(rest[0]); err != nil {
		fmt.Fprintf(stderr, "replhost: kill: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "killed session %s\n", rest[0])
	return 0
}
