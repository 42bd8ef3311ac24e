package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// envPrefix names the environment variable of each flag: --session-ttl is
// REPLHOST_SESSION_TTL. A flag given on the command line wins.
const envPrefix = "REPLHOST_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// applyEnv sets every flag not given on the command line from its
// environment variable.
func applyEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok {
			return
		}
		if ml, isList := f.Value.(*listFlag); isList {
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					ml.Set(item)
				}
			}
			return
		}
		if e := f.Value.Set(v); e != nil {
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
