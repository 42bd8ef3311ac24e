package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/replhost/replhost/admin"
	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/users"
)

const userUsage = "replhost user add [--admin] NAME PUBKEY_FILE | user ls | user rm [--node NODE] NAME"

// userCmd runs `replhost user add|ls|rm`.
func userCmd(args []string, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	fs := newFlagSet("replhost user "+sub, userUsage, stdout, stderr)
	root := rootFlag(fs)
	var isAdmin bool
	node := new(string)
	if sub == "rm" {
		node = nodeFlag(fs)
	}
	if sub == "add" {
		fs.BoolVar(&isAdmin, "admin", false, "the user may list and kill every user's sessions over SSH (sessions --all, kill UUID)")
	}
	rest, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	dir := users.Open(*root)
	switch {
	case sub == "add" && len(rest) == 2:
		return userAdd(dir, rest[0], rest[1], isAdmin, stdout, stderr)
	case sub == "ls" && len(rest) == 0:
		names, err := dir.List()
		if err != nil {
			fmt.Fprintf(stderr, "replhost: %v\n", err)
			return 1
		}
		for _, n := range names {
			if dir.IsAdmin(n) {
				n += " (admin)"
			}
			fmt.Fprintln(stdout, n)
		}
		return 0
	case sub == "rm" && len(rest) == 1:
		return userRm(*root, *node, dir, rest[0], stdout, stderr)
	}
	fmt.Fprintf(stderr, "replhost: usage: %s\n", userUsage)
	return 2
}

func userAdd(dir *users.Dir, name, keyFile string, isAdmin bool, stdout, stderr io.Writer) int {
	var key []byte
	var err error
	if keyFile == "-" {
		key, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	} else {
		key, err = os.ReadFile(keyFile)
	}
	if err != nil {
		fmt.Fprintf(stderr, "replhost: user add: %v\n", err)
		return 1
	}
	n, err := dir.Add(name, key)
	if err == nil && isAdmin {
		err = dir.SetAdmin(name, true)
	}
	if err != nil {
		fmt.Fprintf(stderr, "replhost: user add: %v\n", err)
		return 1
	}
	role := ""
	if isAdmin {
		role = " (admin)"
	}
	fmt.Fprintf(stdout, "user %s%s: %d key(s) added\n", name, role, n)
	return 0
}

// userRm removes the user, so it cannot log in again, then ends its
// sessions: through the running host's admin socket, or, with no host,
// by removing them from the root.
func userRm(root, node string, dir *users.Dir, name string, stdout, stderr io.Writer) int {
	if err := dir.Remove(name); err != nil {
		fmt.Fprintf(stderr, "replhost: user rm: %v\n", err)
		return 1
	}
	n, err := killUserSessions(root, node, name)
	if err != nil {
		fmt.Fprintf(stderr, "replhost: user rm: user %s removed, but its sessions were not ended: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(stdout, "removed user %s (%d session(s) ended)\n", name, n)
	return 0
}

func killUserSessions(root, node, name string) (int, error) {
	if node != "" || clusterRoot(root) {
		return killUserOnCluster(root, node, name) // cluster.go
	}
	c, err := admin.Dial(root)
	if err == nil {
		return c.KillUser(name)
	}
	if !errors.Is(err, admin.ErrNoHost) {
		return 0, err
	}
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	// No host: the sessions are on disk only; a Manager removes them as a
	// host would (it starts no interpreter for that), holding the root's
	// lock so that no host starts on it meanwhile.
	unlock, err := lockRoot(root)
	if err != nil {
		return 0, err
	}
	defer unlock()
	m, err := repl.NewManager(repl.Config{Root: root})
	if err != nil {
		return 0, err
	}
	defer m.Shutdown(context.Background())
	return m.KillUser(name), nil
}
