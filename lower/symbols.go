package lower

import "github.com/traefik/yaegi/interp"

// Symbols holds the standard-library symbols newer than yaegi's Go 1.22
// tables, for the interpreter to Use after stdlib.Symbols.
var Symbols = interp.Exports{}
