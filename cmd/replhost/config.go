package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// maxConfigFile bounds the config file read (it is the operator's, but a
// wrong path may name something huge).
const maxConfigFile = 1 << 20

// fileConfig is a --config file: TOML whose top-level keys are serve's flag
// names (listen = "...", memory = "1GiB", allow-pkg = ["net"]) and a
// [users.NAME] table per user with overrides of that user's limits.
type fileConfig struct {
	settings map[string]any
	users    map[string]userLimits
}

// userLimits are one user's overrides; a zero field keeps the host's value.
type userLimits struct {
	MaxSessions  int
	Memory, Disk byteSize
}

// readConfig reads and checks the config file at path.
func readConfig(path string) (*fileConfig, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxConfigFile {
		return nil, fmt.Errorf("--config %s: not a regular file of at most 1 MiB", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("--config %s: %w", path, err)
	}
	c := &fileConfig{settings: raw, users: map[string]userLimits{}}
	if u, ok := raw["users"]; ok {
		delete(raw, "users")
		tables, ok := u.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("--config %s: users: want a table per user ([users.NAME])", path)
		}
		for name, t := range tables {
			lim, err := parseUserLimits(t)
			if err != nil {
				return nil, fmt.Errorf("--config %s: users.%s: %w", path, name, err)
			}
			c.users[name] = lim
		}
	}
	return c, nil
}

func parseUserLimits(t any) (userLimits, error) {
	var lim userLimits
	m, ok := t.(map[string]any)
	if !ok {
		return lim, fmt.Errorf("want a table")
	}
	for k, v := range m {
		s, err := scalar(v)
		if err != nil {
			return lim, fmt.Errorf("%s: %w", k, err)
		}
		switch k {
		case "max-sessions":
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				return lim, fmt.Errorf("max-sessions: want a positive number, got %q", s)
			}
			lim.MaxSessions = n
		case "memory":
			if err := lim.Memory.Set(s); err != nil {
				return lim, fmt.Errorf("memory: %w", err)
			}
		case "disk":
			if err := lim.Disk.Set(s); err != nil {
				return lim, fmt.Errorf("disk: %w", err)
			}
		default:
			return lim, fmt.Errorf("unknown setting %q (want max-sessions, memory or disk)", k)
		}
	}
	return lim, nil
}

// scalar is a TOML value as the text a flag would get.
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	case time.Duration:
		return v.String(), nil
	}
	return "", fmt.Errorf("want a string, number or boolean, got %T", v)
}

// apply sets every flag of fs that neither the command line nor the
// environment set from the file. A key that is no flag is an error, so a
// typo does not pass silently.
func (c *fileConfig) apply(fs *flag.FlagSet, set map[string]bool) error {
	keys := make([]string, 0, len(c.settings))
	for k := range c.settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := fs.Lookup(k)
		if f == nil || k == "config" {
			return fmt.Errorf("--config: unknown setting %q", k)
		}
		if set[k] {
			continue
		}
		values := []any{c.settings[k]}
		if list, ok := c.settings[k].([]any); ok {
			if _, isList := f.Value.(*listFlag); !isList {
				return fmt.Errorf("--config: %s: want one value, not a list", k)
			}
			values = list
		}
		for _, v := range values {
			s, err := scalar(v)
			if err != nil {
				return fmt.Errorf("--config: %s: %w", k, err)
			}
			if err := fs.Set(k, s); err != nil {
				return fmt.Errorf("--config: %s = %q: %w", k, s, err)
			}
		}
	}
	return nil
}
