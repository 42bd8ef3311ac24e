import (
	"fmt"
	"strings"
)

s := "The quick brown fox"
fmt.Println(strings.ToUpper(s), strings.Count(s, "o"))
fmt.Println(strings.Fields(s), strings.Split("a,b,c", ","))
fmt.Println(strings.Repeat("ab", 3), strings.HasPrefix(s, "The"), strings.Index(s, "brown"))
fmt.Println(strings.Replace(s, "o", "0", -1), strings.TrimSpace("  x  "))
fmt.Println(strings.Join([]string{"x", "y"}, "-"), strings.Contains(s, "fox"))
