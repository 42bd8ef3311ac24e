import "fmt"

func worker(id int, jobs <-chan int, results chan<- int) {
	for j := range jobs {
		results <- j * 2
	}
}

jobs := make(chan int, 10)
results := make(chan int, 10)
for w := 1; w <= 3; w++ {
	go worker(w, jobs, results)
}
for j := 1; j <= 5; j++ {
	jobs <- j
}
close(jobs)
sum := 0
for a := 1; a <= 5; a++ {
	sum += <-results
}
fmt.Println(sum)
