package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// envPrefix names the environment variable of each flag: --session-ttl is
// REPLHOST_SESSION_TTL. A flag given on the command line wins over it, and
// it wins over the config file.
const envPrefix = "REPLHOST_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet is a subcommand's flag set; -h and --help print its synopsis
// and flags to stdout (the flag package calls Usage and returns ErrHelp).
func newFlagSet(name, usage string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printHelp(fs, usage, stdout) }
	return fs
}

// printHelp writes a command's synopsis and flags.
func printHelp(fs *flag.FlagSet, usage string, w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n", usage)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nflags (each also from $%s<FLAG>):\n", envPrefix)
	fs.VisitAll(func(f *flag.Flag) {
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  --%s\n    \t%s%s\n", f.Name, f.Usage, def)
	})
}

// parseArgs parses args with flags in any position (`user add NAME KEY
// --root R` as `user add --root R NAME KEY`) and returns the positional
// arguments. Everything after "--" is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// given is the set of flags set so far (on the command line, then from
// the environment).
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// applyEnv sets every flag not given on the command line from its
// environment variable.
func applyEnv(fs *flag.FlagSet) error {
	set := given(fs)
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok {
			return
		}
		if _, isList := f.Value.(*listFlag); isList {
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					fs.Set(f.Name, item)
				}
			}
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, e)
		}
	})
	return err
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// rootFlag adds --root to fs.
func rootFlag(fs *flag.FlagSet) *string {
	return fs.String("root", "./replhost-root", "directory of the host's state: host key, users, sessions")
}

// parseCommand parses a subcommand's flags (any position) and then its
// environment variables; it returns the positional arguments, or the exit
// status to end with (0 after --help, 2 on a bad flag).
func parseCommand(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, int, bool) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0, false
		}
		return nil, 2, false
	}
	if err := applyEnv(fs); err != nil {
		fmt.Fprintf(stderr, "replhost: %v\n", err)
		return nil, 2, false
	}
	return pos, 0, true
}
