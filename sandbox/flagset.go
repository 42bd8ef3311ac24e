package sandbox

import (
	"flag"
	"io"
	"reflect"

	"github.com/traefik/yaegi/interp"
)

// flagFuncs are the functions of package flag that work on
// flag.CommandLine; each has a method of the same name on *flag.FlagSet.
var flagFuncs = []string{"Arg", "Args", "Bool", "BoolFunc", "BoolVar", "Duration", "DurationVar", "Float64", "Float64Var",
	"Func", "Int", "Int64", "Int64Var", "IntVar", "Lookup", "NArg", "NFlag", "Parsed", "PrintDefaults", "Set", "String",
	"StringVar", "TextVar", "Uint", "Uint64", "Uint64Var", "UintVar", "Var", "Visit", "VisitAll"}

// withFlagSet gives the session a command line of its own: package flag's
// functions are the host process's (the worker's argv: flag.Args() was
// ["worker"]), and yaegi replaces only flag.CommandLine. A session's
// program has no arguments, as `go run prog.go` without any.
func withFlagSet(exports interp.Exports, stderr io.Writer) interp.Exports {
	syms, ok := exports["flag/flag"]
	if !ok {
		return exports
	}
	fs := flag.NewFlagSet("replhost", flag.ContinueOnError)
	fs.SetOutput(stderr)
	own := make(map[string]reflect.Value, len(syms))
	for k, v := range syms {
		own[k] = v
	}
	fv := reflect.ValueOf(fs)
	for _, name := range flagFuncs {
		if _, ok := own[name]; ok {
			if m := fv.MethodByName(name); m.IsValid() {
				own[name] = m
			}
		}
	}
	own["Parse"] = reflect.ValueOf(func() { fs.Parse(nil) })
	out := make(interp.Exports, len(exports))
	for k, v := range exports {
		out[k] = v
	}
	out["flag/flag"] = own
	return out
}
