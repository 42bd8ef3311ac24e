import (
	"fmt"
	"sync"
	"sync/atomic"
)

var n atomic.Int64
var wg sync.WaitGroup
for i := 0; i < 20; i++ {
	wg.Add(1)
	go func() {
		defer wg.Done()
		n.Add(2)
	}()
}
wg.Wait()
var flag atomic.Bool
flag.Store(true)
fmt.Println(n.Load(), flag.Load())
