package repl_test

import (
	"io"
	"testing"
)

// TestTypeAheadKeepsOrder: lines typed while a cell runs, whole ones and
// ones with editing keys (which readline must take), run in the order
// typed, each once, whether the loop takes them itself or readline does
// (repl/directline.go).
func TestTypeAheadKeepsOrder(t *testing.T) {
	_, typing, out, done := interactPipe(t)
	io.WriteString(typing, "import \"time\"\r")
	out.waitForN(t, "go> ", 2)
	io.WriteString(typing, "x := 1\r")
	out.waitForN(t, "go> ", 3)
	for _, s := range []string{
		"time.Sleep(50 * time.Millisecond)\r", // what follows is typed ahead
		"x += 10y\x7f\r",                      // Backspace: readline's line
		"x *= 3\r",
		"x -= 1\r",
		"\x1b[A\x1b[A\r", // Up twice: x *= 3 again
		"x\r",
	} {
		io.WriteString(typing, s)
	}
	out.waitFor(t, "\r\n96\r\n")
	typing.Close()
	<-done
}
