package lower

import "github.com/traefik/yaegi/interp"

//go:generate go run ./internal/genextract

// Symbols holds the standard-library symbols newer than yaegi's Go 1.22
// tables (zsym_*.go, made by yaegi's extract tool), for the interpreter to
// Use after stdlib.Symbols.
var Symbols = interp.Exports{}
