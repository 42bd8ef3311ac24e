import (
	"bytes"
	"fmt"
)

var buf bytes.Buffer
buf.WriteString("hello ")
buf.WriteByte('w')
fmt.Fprintf(&buf, "orld %d", 42)
fmt.Println(buf.String(), buf.Len())
fmt.Println(bytes.Equal([]byte("a"), []byte("a")), bytes.ToUpper([]byte("abc")))
