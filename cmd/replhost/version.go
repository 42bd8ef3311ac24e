package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// commit is the VCS commit for builds the Go toolchain does not stamp
// (-buildvcs=false, or a git worktree, whose .git is a file it does not
// recognise): go build -ldflags "-X main.commit=$(git rev-parse HEAD)".
var commit string

// version is the module version and VCS commit the binary was built from,
// as the Go toolchain stamped them (or as -X main.commit gave it).
func version() string {
	ver, rev, when, dirty := "(unknown)", commit, "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		ver = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	out := "replhost " + ver
	if rev != "" {
		out += " commit " + rev
		if dirty {
			out += " (modified)"
		}
		if when != "" {
			out += " " + when
		}
	}
	return out + " " + runtime.Version()
}

func versionCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replhost version", "replhost version", stdout, stderr)
	pos, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintln(stderr, "replhost: usage: replhost version")
		return 2
	}
	fmt.Fprintln(stdout, version())
	return 0
}
