package sshd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/internal/tmuxterm"
)

// The prompt at a real terminal (issue 14, point 1): tmux runs OpenSSH's
// ssh -t against the host; each test asserts what tmux's screen shows.

func openScreen(t *testing.T, h *testhost.Host, cols, rows int) (*tmuxterm.Screen, string) {
	t.Helper()
	tmuxterm.Available(t)
	s := tmuxterm.SSH(t, h.Addr, "alice", h.KeyFile("alice"), cols, rows)
	var id string
	s.WaitFor("the first prompt", func(rows []string) bool {
		if m := sessionLine.FindStringSubmatch(strings.Join(rows, "")); m != nil {
			id = m[1]
		}
		return id != "" && len(rows) > 0 && rows[len(rows)-1] == "go>"
	})
	return s, id
}

var sessionLine = regexp.MustCompile(`session ([0-9a-f-]{36})`)

// run types a cell and Enter and waits for the next empty prompt after
// the cell's line (rows joined and spaces dropped: a long cell wraps).
func run(s *tmuxterm.Screen, cell string) []string {
	s.Type(cell)
	s.Keys("Enter")
	typed := strings.ReplaceAll("go> "+cell, " ", "")
	return s.WaitFor("the prompt after "+cell, func(rows []string) bool {
		n := len(rows)
		if n < 2 || rows[n-1] != "go>" {
			return false
		}
		return strings.Contains(strings.ReplaceAll(strings.Join(rows[:n-1], ""), " ", ""), typed)
	})
}

func TestScreenOutputWithoutNewlineStays(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, _ := openScreen(t, h, 80, 24)
	run(s, `import "fmt"`)
	s.Type(`fmt.Print("abc")`)
	s.Keys("Enter")
	s.WaitTail(`go> fmt.Print("abc")`, "abc", "go>")
}

func TestScreenHomeEndDelete(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, _ := openScreen(t, h, 80, 24)
	for _, enc := range []struct{ name, home, end, del string }{
		{"tmux-keys", "", "", ""}, // tmux's own Home/End/DC: ESC[1~, ESC[4~, ESC[3~
		{"rxvt", "\x1b[7~", "\x1b[8~", "\x1b[3~"},
		{"xterm", "\x1b[H", "\x1b[F", "\x1b[3~"},
		{"application", "\x1bOH", "\x1bOF", "\x1b[3~"},
	} {
		t.Run(enc.name, func(t *testing.T) {
			press := func(key, raw string) {
				if raw == "" {
					s.Keys(key)
				} else {
					s.Raw(raw)
				}
			}
			s.Type("1+2")
			s.WaitLast("go> 1+2")
			press("Home", enc.home)
			press("DC", enc.del) // deletes the 1
			s.Type("4")
			press("End", enc.end)
			s.Type("0")
			s.WaitLast("go> 4+20")
			s.Keys("Enter")
			s.WaitTail("go> 4+20", "24", "go>")
		})
	}
	// Delete at an empty prompt does nothing (readline took it for Ctrl-D,
	// which detaches).
	s.Keys("DC")
	s.Type("7")
	s.Keys("Enter")
	s.WaitTail("go> 7", "7", "go>")
}

func TestScreenCompletion(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, _ := openScreen(t, h, 80, 24)
	run(s, `import "strings"`)
	// The common prefix first: ToLower and ToLowerSpecial share ToLower.
	s.Type("strings.ToLo")
	s.Keys("Tab")
	s.WaitLast("go> strings.ToLower")
	s.Type(`("Hi")`)
	s.Keys("Enter")
	s.WaitTail(`go> strings.ToLower("Hi")`, `"hi"`, "go>")
	// Nothing to extend: the candidates are listed above the line; typing
	// then narrows them, so U makes ToUpper, never strings.ToU.
	s.Type("strings.To")
	s.Keys("Tab")
	s.WaitFor("the candidates listed above the line", func(rows []string) bool {
		list := strings.Join(rows, "\n")
		for _, want := range []string{"strings.ToLower", "strings.ToUpper", "strings.ToTitle", "strings.ToValidUTF8"} {
			if !strings.Contains(list, want) {
				return false
			}
		}
		return rows[len(rows)-1] == "go> strings.To"
	})
	s.Type("U")
	s.WaitLast("go> strings.ToUpper")
	s.Type(`("hi")`)
	s.Keys("Enter")
	s.WaitTail(`go> strings.ToUpper("hi")`, `"HI"`, "go>")
}

func TestScreenBackgroundOutputAboveLine(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, id := openScreen(t, h, 80, 24)
	run(s, `import ("fmt"; "os"; "time")`)
	// A goroutine that prints (no newline) once the test makes a file.
	run(s, `go func() { for { if _, err := os.Stat("go"); err == nil { break }; time.Sleep(5 * time.Millisecond) }; fmt.Print("tick") }()`)
	s.Type("1 + ")
	s.WaitLast("go> 1 +")
	if err := os.WriteFile(filepath.Join(h.Root, id, "files", "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.WaitTail("tick", "go> 1 +")
	s.Type("2")
	s.Keys("Enter")
	s.WaitTail("tick", "go> 1 + 2", "3", "go>")
}

func TestScreenWideCharacters(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, _ := openScreen(t, h, 80, 24)
	s.Type(`"日本"`)
	s.WaitLast(`go> "日本"`)
	s.WaitCursor(len("go> ") + 1 + 2 + 2 + 1)
	s.Keys("Left", "Left")
	s.WaitCursor(len("go> ") + 1 + 2) // between 日 and 本
	s.Type("語")
	s.WaitLast(`go> "日語本"`)
	s.Keys("Enter")
	s.WaitTail(`go> "日語本"`, `"日語本"`, "go>")
}

func TestScreenWrappedLineAndResize(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, _ := openScreen(t, h, 40, 24)
	long := "1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13" // 53 columns with the prompt
	s.Type(long)
	s.WaitTail(wrapRows("go> "+long, 40)...)
	// Home goes to the start of the wrapped line, across the row.
	s.Keys("Home")
	s.WaitCursor(4)
	s.Type("100 + ")
	full := "go> 100 + " + long
	s.WaitTail(wrapRows(full, 40)...)
	// Narrower: the line is drawn again at the new width, no stale rows.
	s.Resize(30, 24)
	rows := s.WaitTail(wrapRows(full, 30)...)
	if n := strings.Count(strings.Join(rows, "\n"), "go> 100"); n != 1 {
		t.Errorf("the edited line shows %d times after the resize; screen:\n%s", n, strings.Join(rows, "\n"))
	}
	s.Keys("Enter")
	s.WaitTail("191", "go>")
}

// wrapRows is how a terminal of width cols shows an ASCII line, trailing
// blanks cut as tmuxterm reads them.
func wrapRows(line string, cols int) []string {
	var rows []string
	for len(line) > cols {
		rows = append(rows, strings.TrimRight(line[:cols], " "))
		line = line[cols:]
	}
	return append(rows, strings.TrimRight(line, " "))
}

// TestScreenBackgroundOutputAtEmptyPrompt: at an empty prompt the loop
// waits for a whole line without readline (repl/directline.go); a
// goroutine's output then lands above the prompt too, a resize draws the
// prompt again, and the next line, typed key by key, is readline's.
func TestScreenBackgroundOutputAtEmptyPrompt(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, id := openScreen(t, h, 80, 24)
	run(s, `import ("fmt"; "os"; "time")`)
	run(s, `go func() { for { if _, err := os.Stat("go"); err == nil { break }; time.Sleep(5 * time.Millisecond) }; fmt.Print("tick") }()`)
	if err := os.WriteFile(filepath.Join(h.Root, id, "files", "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.WaitTail("tick", "go>")
	s.Resize(60, 24)
	s.WaitTail("tick", "go>")
	s.Type("1 + 2")
	s.WaitLast("go> 1 + 2")
	s.Keys("Enter")
	s.WaitTail("tick", "go> 1 + 2", "3", "go>")
}
