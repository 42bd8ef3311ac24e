package udf_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/replhost/replhost/udf"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func ExampleRun() {
	var reg udf.Registry
	reg.Register("upper", strings.ToUpper)
	reg.Register("div", func(a, b int) (int, error) {
		if b == 0 {
			return 0, fmt.Errorf("%d/0", a)
		}
		return a / b, nil
	})

	upper, _ := reg.Lookup("upper")
	udf.Run(context.Background(), upper, strings.NewReader("a\nb\n"), os.Stdout, os.Stdout, 2)
	div, _ := reg.Lookup("div")
	st, err := udf.Run(context.Background(), div, strings.NewReader("[6,3]\n[1,0]\n[9,2]\n"), os.Stdout, os.Stdout, 2)
	fmt.Printf("%+v %v\n", st, err)
	// Output:
	// A
	// B
	// 2
	// 4
	// record 2: 1/0
	// {Records:3 Failed:1} <nil>
}

func ExampleExports() {
	var reg udf.Registry
	// yaegi also writes "1:28: panic: main(...)" to Stderr for the bad cell.
	i := interp.New(interp.Options{Stderr: io.Discard})
	i.Use(stdlib.Symbols)
	i.Use(udf.Exports(&reg, os.Stdout))
	for _, cell := range []string{
		`import "udf"`,
		`import "strings"`,
		`udf.Register("clean", func(s string) string { return strings.TrimSpace(s) })`,
		`udf.Register("clean", func(s string) string { return strings.ToLower(strings.TrimSpace(s)) })`,
		`udf.Register("bad", 42)`,
	} {
		if _, err := i.Eval(cell); err != nil {
			fmt.Println("error:", err)
		}
	}
	fmt.Println(reg.List())
	// Output:
	// udf: "clean" replaced
	// error: udf: "bad": got int, want a function
	// [clean func(string) string]
}
