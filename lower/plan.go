package lower

import "fmt"

// Plan is what the evaluator runs for one cell: the code the front end
// made of it, already cut into its top-level units by the one splitter,
// with the map back to the user's cell and what to show of each unit.
type Plan struct {
	Src string // the code for the interpreter; the cell itself when nothing changed
	// Units are Src's top-level units; nil when Src is the cell (the
	// evaluator has cut the cell already).
	Units []Unit
	Map   *SourceMap // Src's positions → the cell's; nil when Src is the cell
	// NoValue[i] says unit i is a call the lowering added (a statement run
	// in a function of its own, `ʟstmtN()`): it has no value to show.
	NoValue []bool
}

// Plan lowers cell (LowerMap) and cuts the code for the evaluator. Its
// errors are LowerMap's; a lowered code that does not scan is an error
// that is not an *Error (a limitation of the front end).
func (s *Session) Plan(cell string) (*Plan, error) {
	out, m, err := s.LowerMap(cell)
	if err != nil {
		return nil, err
	}
	p := &Plan{Src: out, Map: m}
	if out == cell {
		return p, nil
	}
	us, lerr := splitUnits([]byte(out))
	if lerr != nil {
		return nil, fmt.Errorf("lower: the lowered code does not scan: %w", lerr)
	}
	p.Units = make([]Unit, len(us))
	p.NoValue = make([]bool, len(us))
	if s.last != nil {
		for i, u := range us {
			p.NoValue[i] = u.kind == unitStmt && s.last.calls[out[u.start:u.end]]
		}
	}
	for i, u := range us {
		p.Units[i] = u.export()
	}
	return p, nil
}

// noteCall records a call lowerCell added for the cell being lowered.
func (s *Session) noteCall(call string) {
	if s.last == nil {
		return
	}
	if s.last.calls == nil {
		s.last.calls = map[string]bool{}
	}
	s.last.calls[call] = true
}
