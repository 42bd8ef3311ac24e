package fmtmirror

import "sync"

// A value of a type declared in a function (`type L struct{ C Color }`)
// stored in an interface prints by its parts' methods only where the
// print site sees the type; elsewhere (returned as an any) it is a plain
// struct. The front end tags it where it is converted, inside the
// function, with a Rebuilder that only code there can make (it names
// the type): made at the first conversion and held by the session in a
// package-level LocalRebuilder, so that it lives as long as the session.

// LocalRebuilder holds the Rebuilder of one type declared in a function.
type LocalRebuilder struct {
	once sync.Once
	b    *Rebuilder
}

// NewLocalRebuilder returns an empty LocalRebuilder.
func NewLocalRebuilder() *LocalRebuilder { return &LocalRebuilder{} }

// Get returns the Rebuilder, made by mk at the first call.
func (c *LocalRebuilder) Get(mk func() *Rebuilder) *Rebuilder {
	c.once.Do(func() { c.b = mk() })
	return c.b
}
