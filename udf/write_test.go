package udf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// slowWriter takes a millisecond per Write and records each one.
type slowWriter struct {
	bytes.Buffer
	sizes []int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// TestRunGathersOutput: while a Write is in progress, the batches done
// meanwhile go out together in the next one, up to writeBytes.
func TestRunGathersOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 20_000 // lines of 2 to 6 bytes: about 80 batches of at most 1.5 KiB
		out := &slowWriter{}
		st, err := Run(context.Background(), native(t, strings.ToUpper), numbers(n), out, out, 2)
		if err != nil || st.Records != n {
			t.Fatalf("got %+v, %v; want %d records", st, err, n)
		}
		var want strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintln(&want, i)
		}
		if out.String() != want.String() {
			t.Errorf("output differs from the lines 1 to %d", n)
		}
		batches := (n + batchRecords - 1) / batchRecords
		if len(out.sizes) > batches/2 {
			t.Errorf("got %d writes for %d batches; want at most %d", len(out.sizes), batches, batches/2)
		}
		for i, size := range out.sizes {
			if size > writeBytes {
				t.Errorf("write %d: got %d bytes; want at most %d", i, size, writeBytes)
			}
		}
	})
}

// TestRunErrorsFollowOutput: with output and errors on one writer, a
// failed record's line comes after the output of the record before it,
// however the output is gathered.
func TestRunErrorsFollowOutput(t *testing.T) {
	failEvery := func(s string) (string, error) {
		if n, _ := strconv.Atoi(s); n%100 == 0 {
			return "", errors.New("no")
		}
		return s, nil
	}
	const n = 2000
	out := &slowWriter{}
	synctest.Test(t, func(t *testing.T) {
		if _, err := Run(context.Background(), native(t, failEvery), numbers(n), out, out, 2); err != nil {
			t.Fatal(err)
		}
	})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	pos := map[string]int{}
	for i, l := range lines {
		pos[l] = i
	}
	for k := 100; k <= n; k += 100 {
		errAt, ok := pos[fmt.Sprintf("record %d: no", k)]
		if !ok {
			t.Errorf("no error line for record %d", k)
			continue
		}
		if prev := pos[strconv.Itoa(k-1)]; errAt < prev {
			t.Errorf("error line of record %d at line %d, before the output of record %d at %d", k, errAt, k-1, prev)
		}
	}
}
