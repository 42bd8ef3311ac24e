import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

var ErrBase = errors.New("base")

type MyErr struct{ Code int }

func (e MyErr) Error() string { return fmt.Sprintf("code %d", e.Code) }

wrapped := fmt.Errorf("layer2: %w", fmt.Errorf("layer1: %w", ErrBase))
fmt.Println(wrapped, errors.Is(wrapped, ErrBase), errors.Unwrap(wrapped))
var me MyErr
e2 := fmt.Errorf("ctx: %w", MyErr{7})
fmt.Println(errors.As(e2, &me), me.Code)
_, err := os.Open("/definitely/not/here")
fmt.Println(errors.Is(err, fs.ErrNotExist))
