import "fmt"

type op func(int, int) int

func apply(f op, a, b int) int { return f(a, b) }

ops := map[string]op{
	"add": func(a, b int) int { return a + b },
	"mul": func(a, b int) int { return a * b },
}
fmt.Println(apply(ops["add"], 3, 4), apply(ops["mul"], 3, 4))
compose := func(f, g func(int) int) func(int) int { return func(x int) int { return f(g(x)) } }
inc := func(x int) int { return x + 1 }
dbl := func(x int) int { return x * 2 }
fmt.Println(compose(inc, dbl)(5), compose(dbl, inc)(5))
