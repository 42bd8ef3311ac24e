import (
	"fmt"
	"strings"
)

for line := range strings.Lines("a\nbb\nccc") {
	fmt.Printf("%q\n", line)
}
for part := range strings.SplitSeq("x,y,z", ",") {
	fmt.Print(part, ";")
}
fmt.Println()
