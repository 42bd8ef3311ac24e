import "fmt"

func describe(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case int:
		return fmt.Sprintf("int %d", x)
	case string:
		return "string " + x
	case []int:
		return fmt.Sprint("slice of ", len(x))
	case error:
		return "error " + x.Error()
	default:
		return fmt.Sprintf("other %T", x)
	}
}

for _, v := range []interface{}{1, "a", []int{1, 2}, nil, 2.5, fmt.Errorf("e")} {
	fmt.Println(describe(v))
}
