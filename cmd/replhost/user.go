package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/replhost/replhost/users"
)

// userCmd runs `replhost user add|ls|rm`.
func userCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "replhost: usage: replhost user add NAME PUBKEY_FILE | user ls | user rm NAME\n")
		return 2
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("replhost user "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := rootFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := applyEnv(fs); err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return 2
	}
	dir := users.Open(*root)
	rest := fs.Args()
	switch {
	case sub == "add" && len(rest) == 2:
		return userAdd(dir, rest[0], rest[1], stdout, stderr)
	case sub == "ls" && len(rest) == 0:
		names, err := dir.List()
		if err != nil {
			fmt.Fprintf(stderr, "replhost: %v\n", err)
			return 1
		}
		for _, n := range names {
			fmt.Fprintln(stdout, n)
		}
		return 0
	case sub == "rm" && len(rest) == 1:
		if err := dir.Remove(rest[0]); err != nil {
			fmt.Fprintf(stderr, "replhost: user rm: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "removed user %s\n", rest[0])
		return 0
	}
	fmt.Fprint(stderr, "replhost: usage: replhost user add NAME PUBKEY_FILE | user ls | user rm NAME\n")
	return 2
}

func userAdd(dir *users.Dir, name, keyFile string, stdout, stderr io.Writer) int {
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
	if err != nil {
		fmt.Fprintf(stderr, "replhost: user add: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "user %s: %d key(s) added\n", name, n)
	return 0
}
