package sshd_test

import (
	"strings"
	"testing"
	"time"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/internal/tmuxterm"
)

// The cursor on a wrapped line with wide characters, at a real terminal
// (tmux, 20 columns): the 8th CJK character does not fit in the first row's
// last column and starts the second row, as a terminal lays it out.
func TestScreenWideCharactersWrapped(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	s, _ := openScreen(t, h, 20, 24)
	s.Type(`"日本語日本語日本語日"`)
	first, second := `go> "日本語日本語日`, `本語日"`
	s.WaitTail(first, second)
	waitCursorAt(t, s, 7, 0) // after the closing quote, on the last row
	s.Keys("Left")
	waitCursorAt(t, s, 6, 0) // on the quote
	s.Keys("Left", "Left", "Left")
	waitCursorAt(t, s, 0, 0) // on the 8th character, at the second row's start
	s.Keys("Left")
	waitCursorAt(t, s, 17, 1) // on the 7th, the first row's last character
	s.Type("x")
	// x takes one column: the 7th character now ends the first row at
	// column 19, the rest follows on the second.
	s.WaitTail(`go> "日本語日本語x日`, `本語日"`)
	waitCursorAt(t, s, 18, 1) // still on the 7th character
	s.Keys("Home")
	waitCursorAt(t, s, 4, 1)
	s.Keys("End")
	waitCursorAt(t, s, 7, 0)
	s.Keys("Enter")
	s.WaitTail(`"日本語日本語x日本語`, `日"`, "go>")
}

// waitCursorAt waits until the cursor is at column x of the row up rows
// above the screen's last non-blank row.
func waitCursorAt(t *testing.T, s *tmuxterm.Screen, x, up int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows := s.Text()
		cx, cy := s.Cursor()
		if cx == x && cy == len(rows)-1-up {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cursor at column %d row %d; want column %d row %d; screen:\n%s", cx, cy, x, len(rows)-1-up, strings.Join(rows, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
