// Package iter implements the types and functions of the standard iter
// package. Pull runs the push iterator in a goroutine.
package iter

// Seq is a push iterator over single values.
type Seq[V any] func(yield func(V) bool)

// Seq2 is a push iterator over pairs.
type Seq2[K, V any] func(yield func(K, V) bool)

// Pull turns a push iterator into a next and a stop function.
func Pull[V any](seq Seq[V]) (func() (V, bool), func()) {
	type item struct {
		v  V
		ok bool
	}
	req := make(chan bool)
	out := make(chan item)
	started, finished := false, false
	run := func() {
		if <-req {
			seq(func(v V) bool {
				out <- item{v, true}
				more := <-req // yaegi fails on return <-ch in a goroutine ("unaddressable value")
				return more
			})
		}
		finished = true
		close(out)
	}
	next := func() (V, bool) {
		var zero V
		if finished {
			return zero, false
		}
		if !started {
			started = true
			go run()
		}
		req <- true
		it, ok := <-out
		if !ok {
			return zero, false
		}
		return it.v, it.ok
	}
	stop := func() {
		if finished {
			return
		}
		if !started {
			finished = true
			return
		}
		req <- false
		for range out {
		}
	}
	return next, stop
}

// Pull2 turns a push iterator over pairs into a next and a stop function.
func Pull2[K, V any](seq Seq2[K, V]) (func() (K, V, bool), func()) {
	type item struct {
		k  K
		v  V
		ok bool
	}
	req := make(chan bool)
	out := make(chan item)
	started, finished := false, false
	run := func() {
		if <-req {
			seq(func(k K, v V) bool {
				out <- item{k, v, true}
				more := <-req // yaegi fails on return <-ch in a goroutine ("unaddressable value")
				return more
			})
		}
		finished = true
		close(out)
	}
	next := func() (K, V, bool) {
		var zk K
		var zv V
		if finished {
			return zk, zv, false
		}
		if !started {
			started = true
			go run()
		}
		req <- true
		it, ok := <-out
		if !ok {
			return zk, zv, false
		}
		return it.k, it.v, it.ok
	}
	stop := func() {
		if finished {
			return
		}
		if !started {
			finished = true
			return
		}
		req <- false
		for range out {
		}
	}
	return next, stop
}
