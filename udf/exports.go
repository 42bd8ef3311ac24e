package udf

import (
	"fmt"
	"io"
	"reflect"

	"github.com/traefik/yaegi/interp"
)

// Exports returns the interpreted package "udf" bound to reg, for
// interp.Interpreter.Use, so that interpreted code can do
//
//	import "udf"
//	udf.Register("clean", func(s string) string { return strings.TrimSpace(s) })
//
// udf.Register(name string, fn any) registers fn in reg. A function yaegi
// interprets arrives as a Go func of its signature (yaegi wraps it with
// reflect.MakeFunc), so native and interpreted functions are alike here.
// A rejected function panics with the one-line error, which yaegi returns
// from Eval as the cell's error (an interp.Panic). Replacing a function
// writes `udf: "clean" replaced` to notice, if notice is not nil.
func Exports(reg *Registry, notice io.Writer) interp.Exports {
	register := func(name string, fn any) {
		replaced, err := reg.Register(name, fn)
		if err != nil {
			panic(err)
		}
		if replaced && notice != nil {
			fmt.Fprintf(notice, "udf: %q replaced\n", name)
		}
	}
	return interp.Exports{
		"udf/udf": {"Register": reflect.ValueOf(register)},
	}
}
