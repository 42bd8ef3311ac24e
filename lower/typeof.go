package lower

import (
	"errors"
	"fmt"
	"go/types"
)

// TypeOf returns the type of the expression expr in the session's context
// (the committed cells), as go/types writes it with package names, without
// running anything: the :type command. A tuple is written (T1, T2).
func (s *Session) TypeOf(expr string) (string, error) {
	c, err := parseCell(s.fset, len(s.cells), expr, s.importSet())
	if err != nil {
		return "", err
	}
	defer s.forget(c)
	if len(c.exprs) != 1 || len(c.body.List) != 1 {
		return "", errors.New("not one expression")
	}
	chk, err := s.check(c)
	if err != nil {
		return "", err
	}
	if chk.passthrough {
		return "", errors.New("an import of the session could not be type-checked")
	}
	for e := range c.exprs {
		tv, ok := chk.info.Types[e]
		if !ok || tv.Type == nil {
			return "", fmt.Errorf("no type for %s", expr)
		}
		if tv.IsType() {
			return "", fmt.Errorf("%s is a type, not an expression", expr)
		}
		qual := func(p *types.Package) string {
			if chk.local(p) {
				return ""
			}
			return p.Name()
		}
		if t, ok := tv.Type.(*types.Tuple); ok && t.Len() == 0 {
			return "no value", nil
		}
		return types.TypeString(tv.Type, qual), nil
	}
	return "", errors.New("not one expression")
}

// ImportPath returns the path of the package the session's code names
// name (an import's name, explicit or the package's own), for :doc.
func (s *Session) ImportPath(name string) (string, bool) {
	path, ok := s.importSet()[name]
	return path, ok && path != ""
}

// Imports returns the names the session's code gives its imported
// packages, each with the package's path.
func (s *Session) Imports() map[string]string {
	out := make(map[string]string, len(s.importSet()))
	for name, path := range s.importSet() {
		out[name] = path
	}
	return out
}
