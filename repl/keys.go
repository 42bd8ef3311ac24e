package repl

import (
	"bytes"
	"strings"
)

// deleteKey stands for the Delete key in readline's input: readline takes
// ESC[3~ for Ctrl-D, which at an empty line ends the session. The listener
// (editKeys) turns it into a forward delete. A private-use rune, as
// pasteNewline.
const deleteKey = '\uE002'

// keyCodes maps the Home, End and Delete encodings of common terminals
// (xterm, tmux and screen, the Linux console, rxvt, application mode) to
// what readline understands: Ctrl-A, Ctrl-E and deleteKey.
var keyCodes = []struct{ seq, to string }{
	{"\x1b[1~", "\x01"}, {"\x1b[7~", "\x01"}, {"\x1b[H", "\x01"}, {"\x1bOH", "\x01"},
	{"\x1b[4~", "\x05"}, {"\x1b[8~", "\x05"}, {"\x1b[F", "\x05"}, {"\x1bOF", "\x05"},
	{"\x1b[3~", string(deleteKey)},
}

// translateKey returns the translation of the key sequence data starts
// with and its length; n is 0 when data starts with none, and partial is
// true when data is a proper beginning of one (held for the next read).
func translateKey(data []byte) (to string, n int, partial bool) {
	if len(data) == 0 || data[0] != 0x1b {
		return "", 0, false
	}
	for _, k := range keyCodes {
		if bytes.HasPrefix(data, []byte(k.seq)) {
			return k.to, len(k.seq), false
		}
		if len(data) < len(k.seq) && strings.HasPrefix(k.seq, string(data)) {
			partial = true
		}
	}
	return "", 0, partial
}

// forwardDelete applies a deleteKey that readline inserted before pos:
// it goes, with the rune after it.
func forwardDelete(line []rune, pos int) ([]rune, int, bool) {
	if pos < 1 || pos > len(line) || line[pos-1] != deleteKey {
		return nil, 0, false
	}
	out := append([]rune(nil), line[:pos-1]...)
	if pos < len(line) {
		out = append(out, line[pos+1:]...)
	}
	return out, pos - 1, true
}
