package yaegix

import (
	"bytes"
	"io"
	"reflect"
	"sync"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// writes records each Write separately: yaegi's stderr lines are matched
// one Write at a time.
type writes struct {
	mu   sync.Mutex
	list []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, string(bytes.Clone(p)))
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

// newInterp is a restricted interpreter with the standard library, as the
// sandbox makes one.
func newInterp(tb testing.TB, stdout, stderr io.Writer, opts ...func(*interp.Options)) *interp.Interpreter {
	tb.Helper()
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	o := interp.Options{Stdout: stdout, Stderr: stderr}
	for _, f := range opts {
		f(&o)
	}
	yi := interp.New(o)
	if err := yi.Use(stdlib.Symbols); err != nil {
		tb.Fatal(err)
	}
	return yi
}

// evalAll runs each source in turn and returns the first error, with a
// panic of the interpreter itself (log.Panic) recovered as its value.
func evalAll(yi *interp.Interpreter, srcs ...string) (recovered any, err error) {
	for _, src := range srcs {
		func() {
			defer func() { recovered = recover() }()
			_, err = yi.Eval(src)
		}()
		if err != nil || recovered != nil {
			return recovered, err
		}
	}
	return nil, nil
}

func reflectValue(v any) reflect.Value { return reflect.ValueOf(v) }
