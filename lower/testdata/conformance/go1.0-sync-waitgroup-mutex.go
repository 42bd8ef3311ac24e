import (
	"fmt"
	"sync"
)

var mu sync.Mutex
var wg sync.WaitGroup
count := 0
for i := 0; i < 50; i++ {
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
		count++
		mu.Unlock()
	}()
}
wg.Wait()
fmt.Println(count)
