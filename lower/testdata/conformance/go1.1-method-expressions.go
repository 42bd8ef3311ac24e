import (
	"fmt"
	"strings"
)

upper := strings.ToUpper
f := fmt.Sprintf
fmt.Println(upper(f("%d-%s", 1, "x")))
type S string
func (s S) Twice() S { return s + s }
tw := S.Twice
fmt.Println(tw("ab"))
