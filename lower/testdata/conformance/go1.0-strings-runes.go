import "fmt"

s := "héllo, 世界"
for i, r := range s {
	if r > 127 {
		fmt.Println(i, string(r))
	}
}
fmt.Println(len(s), len([]rune(s)), s[1:3] == "é")
b := []byte("abc")
b[0] = 'A'
fmt.Println(string(b))
