package repl

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/chzyer/readline"
)

// Completion, bash-style with narrowing, done in readline's Listener:
// readline's own menu (v1.5.1) never extends the common prefix once it is
// shown, and a key typed while a candidate is highlighted drops that
// candidate (strings.To<Tab>U("hi") ran strings.ToU). Here Tab completes a
// unique candidate, else extends the common prefix, else lists the
// candidates above the line; while a list is shown, each identifier key
// typed extends the common prefix of what still matches.

// noCompletion keeps readline's completer away from Tab, which reaches
// the listener as a key instead.
type noCompletion struct{}

func (noCompletion) Do([]rune, int) ([][]rune, int) { return nil, 0 }

// lineKeys is readline's Listener: forward Delete and completion.
// readline calls it from its key loop and from Readline's own goroutine
// (Operation.Runes), so its state is atomic.
type lineKeys struct {
	it     *interaction
	listed atomic.Bool // candidates are listed: typing narrows them
}

func (k *lineKeys) OnChange(line []rune, pos int, key rune) ([]rune, int, bool) {
	if key == deleteKey {
		return forwardDelete(line, pos)
	}
	switch {
	case key == readline.CharTab:
		return k.complete(line, pos, true)
	case k.listed.Load() && isWordRune(key):
		return k.complete(line, pos, false)
	}
	k.listed.Store(false)
	return nil, 0, false
}

// complete extends the word before pos; list says to list the candidates
// when it cannot be extended.
func (k *lineKeys) complete(line []rune, pos int, list bool) ([]rune, int, bool) {
	suffixes, n := completer{k.it.s}.Do(line, pos)
	if len(suffixes) == 0 {
		k.listed.Store(false)
		return nil, 0, false
	}
	common := suffixes[0]
	for _, s := range suffixes[1:] {
		i := 0
		for i < len(common) && i < len(s) && common[i] == s[i] {
			i++
		}
		common = common[:i]
	}
	if len(suffixes) == 1 {
		k.listed.Store(false)
	}
	if len(common) == 0 {
		if list && len(suffixes) > 1 {
			k.list(string(line[pos-n:pos]), suffixes)
		}
		return nil, 0, false
	}
	out := append(append(append([]rune(nil), line[:pos]...), common...), line[pos:]...)
	return out, pos + len(common), true
}

// maxListed bounds the candidates listed at once.
const maxListed = 200

// list prints the candidates above the line being edited, in columns.
func (k *lineKeys) list(word string, suffixes [][]rune) {
	k.listed.Store(true)
	names := make([]string, 0, len(suffixes))
	wide := 0
	for i, s := range suffixes {
		if i == maxListed {
			break
		}
		name := word + string(s)
		names = append(names, name)
		wide = max(wide, columns([]rune(name)))
	}
	width := int(k.it.width.Load())
	cols := max(1, width/(wide+2))
	var b strings.Builder
	for i, name := range names {
		b.WriteString(name)
		if (i+1)%cols == 0 || i == len(names)-1 {
			b.WriteByte('\n')
		} else {
			b.WriteString(strings.Repeat(" ", wide+2-columns([]rune(name))))
		}
	}
	if len(suffixes) > maxListed {
		fmt.Fprintf(&b, "(%d more)\n", len(suffixes)-maxListed)
	}
	k.it.rl.Stdout().Write([]byte(b.String()))
}
