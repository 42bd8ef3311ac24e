package yaegix

import (
	"regexp"
	"strconv"
	"strings"
)

// posPrefix is the position yaegi puts before its compile and run-time
// errors: "L:C: msg", or "file.go:L:C: msg" in a source package.
var posPrefix = regexp.MustCompile(`^(?:[^:\s]*\.go:)?(\d+):(\d+): (?s:(.*))$`)

// SplitPos splits an error text of yaegi into its position and message;
// ok is false when the text has no position.
func SplitPos(text string) (line, col int, msg string, ok bool) {
	m := posPrefix.FindStringSubmatch(text)
	if m == nil {
		return 0, 0, text, false
	}
	line, _ = strconv.Atoi(m[1])
	col, _ = strconv.Atoi(m[2])
	return line, col, m[3], true
}

// panicFrame is the line yaegi writes to the interpreter's Stderr, in one
// Write, for every frame a panic of interpreted code unwinds
// ("L:C: panic: main(...)"); the first is where the panic happened.
var panicFrame = regexp.MustCompile(`^(\d+):(\d+): panic: [^\n]*\(\.\.\.\)\n?$`)

// PanicFrame reports whether p, one Write to the interpreter's Stderr, is
// such a frame line, and the position it names.
func PanicFrame(p []byte) (line, col int, ok bool) {
	m := panicFrame.FindSubmatch(p)
	if m == nil {
		return 0, 0, false
	}
	line, _ = strconv.Atoi(string(m[1]))
	col, _ = strconv.Atoi(string(m[2]))
	return line, col, true
}

// ExitCode reports whether v is the panic by which os.Exit ends interpreted
// code in an interpreter that is not Unrestricted ("os.Exit(N)", from
// yaegi's stdlib/restricted.go), and its status N.
func ExitCode(v any) (code int, ok bool) {
	s, isString := v.(string)
	if !isString {
		return 0, false
	}
	n, found := strings.CutPrefix(s, "os.Exit(")
	if !found {
		return 0, false
	}
	n, found = strings.CutSuffix(n, ")")
	if !found {
		return 0, false
	}
	code, err := strconv.Atoi(n)
	return code, err == nil
}

// ExitPanic is the panic value of os.Exit(code) in such an interpreter, for
// code that ends a cell as os.Exit does (log.Fatal).
func ExitPanic(code int) string { return "os.Exit(" + strconv.Itoa(code) + ")" }
