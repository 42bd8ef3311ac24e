package lower

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The rewriter marks, in the text it builds, where each piece comes from:
// a chunk copied from the cell is bracketed by markVerbatim+offset+markClose
// … markEnd, the text of an edit by markSynth+offset+markClose … markEnd,
// offset being where the replaced code starts in the cell. Markers survive
// the string concatenations of the lowering (edits embed the text of their
// children), and are stripped from the final text into a SourceMap. They are
// private-use runes; a cell that contains one is mapped coarsely instead.
const (
	markVerbatim = '\uE000'
	markSynth    = '\uE001'
	markClose    = '\uE002'
	markEnd      = '\uE003'
)

func hasMarks(b []byte) bool {
	for _, m := range []rune{markVerbatim, markSynth, markClose, markEnd} {
		if bytes.ContainsRune(b, m) {
			return true
		}
	}
	return false
}

func openMark(kind rune, off int) string {
	return string(kind) + strconv.Itoa(off) + string(markClose)
}

// SourceMap takes a position in a lowered cell back to the cell the user
// typed. A nil *SourceMap is the identity (the cell was not rewritten).
type SourceMap struct {
	outLines []int // offsets of the lines of the lowered text
	cell     []int // offsets of the lines of the cell
	cellLen  int
	segs     []segment
}

// segment says where the lowered text from out onwards comes from: src is
// an offset in the cell, -1 for code the lowering added (helpers, instances
// of generics declared elsewhere). In a verbatim segment the offsets advance
// together; a synthesized one maps wholly to src.
type segment struct {
	out, src int
	verbatim bool
}

// Pos maps the 1-based line and column of the lowered text (a byte column,
// as go/token counts) to the user's line and column in the cell; ok is false
// for code the lowering added, which has no place in the cell.
func (m *SourceMap) Pos(line, col int) (cellLine, cellCol int, ok bool) {
	if m == nil {
		return line, col, true
	}
	if line < 1 || line > len(m.outLines) || col < 1 {
		return 0, 0, false
	}
	off := m.outLines[line-1] + col - 1
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].out > off }) - 1
	if i < 0 || m.segs[i].src < 0 {
		return 0, 0, false
	}
	s := m.segs[i]
	src := s.src
	if s.verbatim {
		src += off - s.out
	}
	src = min(src, m.cellLen)
	l := sort.Search(len(m.cell), func(i int) bool { return m.cell[i] > src }) - 1
	return l + 1, src - m.cell[l] + 1, true
}

// stripMarks removes the markers from marked text and returns the text with
// the map from it back to the cell.
func stripMarks(marked string, cell []byte) (string, *SourceMap) {
	m := &SourceMap{cell: lineStarts(string(cell)), cellLen: len(cell)}
	var b strings.Builder
	b.Grow(len(marked))
	type frame struct {
		src      int
		verbatim bool
		at       int // output offset where this frame's text (re)starts
	}
	stack := []frame{{src: -1}}
	// resume starts a segment for the innermost frame at the current output.
	resume := func() {
		f := &stack[len(stack)-1]
		src := f.src
		if f.verbatim {
			src += b.Len() - f.at
		}
		seg := segment{out: b.Len(), src: src, verbatim: f.verbatim}
		if n := len(m.segs); n > 0 && m.segs[n-1].out == seg.out {
			m.segs[n-1] = seg
		} else {
			m.segs = append(m.segs, seg)
		}
	}
	resume()
	for i := 0; i < len(marked); {
		r, size := utf8.DecodeRuneInString(marked[i:])
		switch r {
		case markVerbatim, markSynth:
			j := strings.IndexRune(marked[i:], markClose)
			off, _ := strconv.Atoi(marked[i+size : i+j])
			// A verbatim frame's offset is that of its text start: when a
			// frame nested in it ends, the text after it goes on from
			// src + (bytes written since its start), so record the start.
			stack = append(stack, frame{src: off, verbatim: r == markVerbatim, at: b.Len()})
			resume()
			i += j + utf8.RuneLen(markClose)
			continue
		case markEnd:
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				stack = []frame{{src: -1}}
			}
			resume()
			i += size
			continue
		}
		b.WriteString(marked[i : i+size])
		i += size
	}
	out := b.String()
	m.outLines = lineStarts(out)
	return out, m
}

func lineStarts(s string) []int {
	starts := []int{0}
	for i := range len(s) {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

var (
	helperName   = regexp.MustCompile(`ʟ(min|max)_[A-Za-z0-9_]+`)
	instanceName = regexp.MustCompile(`ʟ([A-Za-z_][A-Za-z0-9_]*?)_[0-9a-f]{8}\b`)
)

// CleanMessage rewrites the names the lowering gives its helpers and the
// instances of generics, in a message of the interpreter, back to the
// names the user wrote (ʟmin_int → min, ʟMap_1a2b3c4d → Map).
func CleanMessage(msg string) string {
	if !strings.Contains(msg, "ʟ") {
		return msg
	}
	msg = helperName.ReplaceAllString(msg, "$1")
	return instanceName.ReplaceAllString(msg, "$1")
}
