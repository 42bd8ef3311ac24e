package gotestdir

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Outcome is what one case did through the host.
type Outcome struct {
	Stdout, Stderr string
	Exit           int
	TimedOut       bool
}

// Failure is a case that did not print what the toolchain's program
// printed or did not exit as it did, with its cause: a short category
// (stable across runs) and a detail line for the reader.
type Failure struct {
	Name, Cause, Detail string
}

// Judge compares o with w; ok is true when they match.
func Judge(name string, w Want, o Outcome) (f Failure, ok bool) {
	f.Name = name
	switch {
	case o.TimedOut:
		f.Cause = "timeout"
	case o.Exit == w.Exit && o.Stdout == w.Stdout:
		return f, true
	default:
		f.Cause, f.Detail = classify(w, o)
	}
	if f.Detail == "" {
		f.Detail = errorLine(o.Stderr)
	}
	return f, false
}

var (
	refusedRE = regexp.MustCompile(`package "?([a-zA-Z0-9_./]+)"? is not allowed`)
	posRE     = regexp.MustCompile(`^error: (\d+:\d+: |[^ ]*\.go:\d+:\d+: )`)
)

// classify names the cause of a mismatch from the host's error line.
func classify(w Want, o Outcome) (cause, detail string) {
	line := errorLine(o.Stderr)
	switch {
	case strings.Contains(line, "session crashed"):
		return "crash", line
	case refusedRE.MatchString(line):
		m := refusedRE.FindStringSubmatch(line)
		return "refused " + m[1], line
	case strings.Contains(line, "front end"):
		return "front end", line
	case strings.HasPrefix(line, "error: interpreter:"):
		return "interpreter panic", line // yaegi's own, not the program's
	case strings.Contains(line, "panic: reflect") || strings.Contains(line, "panic: interface conversion"):
		return "reflect panic", line // yaegi's use of reflect
	case strings.Contains(line, "panic"):
		return "program panic", line // the program's own check failed, or Go would not panic there
	case strings.Contains(line, "timed out"):
		return "timeout", line
	case posRE.MatchString(line) || strings.HasPrefix(line, "error: "):
		return "compile error", line
	case o.Exit != w.Exit:
		return fmt.Sprintf("exit %d", o.Exit), fmt.Sprintf("stdout %q", clip(o.Stdout))
	}
	return "wrong output", fmt.Sprintf("got %q; want %q", clip(o.Stdout), clip(w.Stdout))
}

// errorLine is the first line the host wrote on stderr that says what went
// wrong, shortened.
func errorLine(stderr string) string {
	first := ""
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "session crashed") || strings.HasPrefix(l, "panic:") {
			return clip(l)
		}
	}
	return clip(first)
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// LoadFailures reads a failures file: one `NAME<TAB>CAUSE<TAB>DETAIL` line
// per failing case; blank lines and lines starting with # are comments.
func LoadFailures(path string) (map[string]Failure, error) {
	fs := map[string]Failure{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return fs, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) < 2 {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		fl := Failure{Name: parts[0], Cause: parts[1]}
		if len(parts) == 3 {
			fl.Detail = parts[2]
		}
		fs[fl.Name] = fl
	}
	return fs, sc.Err()
}

// SaveFailures writes the failures sorted by name under a header.
func SaveFailures(path, header string, fs map[string]Failure) error {
	names := make([]string, 0, len(fs))
	for n := range fs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(header)
	for _, n := range names {
		f := fs[n]
		detail := strings.NewReplacer("\t", " ", "\n", " ").Replace(f.Detail)
		fmt.Fprintf(&b, "%s\t%s\t%s\n", f.Name, f.Cause, detail)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Counts tallies failures by cause.
func Counts(fs map[string]Failure) map[string]int {
	c := map[string]int{}
	for _, f := range fs {
		c[f.Cause]++
	}
	return c
}
