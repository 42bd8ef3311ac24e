// Command nativeudf is the physical limit beside `udf call`: the same UDFs
// compiled natively in a plain Go program that reads records from stdin, one
// per line, and writes one result line per record to stdout, in one
// goroutine, through 64 KiB buffers. It is what the UDF benchmarks compare
// the interpreted, SSH-served path with (see BENCHMARKS.md, "UDFs").
//
//	nativeudf up  < lines   # strings.ToUpper of each line
//	nativeudf add < pairs   # [a,b] per line, decoded with encoding/json, a+b
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: nativeudf up|add < records")
		os.Exit(2)
	}
	n, err := Run(os.Args[1], os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nativeudf: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d records\n", n)
}

// Run applies the function name ("up" or "add") to each line of in and
// writes the results to out; it returns the number of records.
func Run(name string, in io.Reader, out io.Writer) (int, error) {
	var apply func(w *bufio.Writer, line []byte) error
	switch name {
	case "up":
		apply = func(w *bufio.Writer, line []byte) error {
			w.WriteString(strings.ToUpper(string(line)))
			return w.WriteByte('\n')
		}
	case "add":
		var num [20]byte
		apply = func(w *bufio.Writer, line []byte) error {
			var args [2]int
			if err := json.Unmarshal(line, &args); err != nil {
				return err
			}
			w.Write(strconv.AppendInt(num[:0], int64(add(args[0], args[1])), 10))
			return w.WriteByte('\n')
		}
	default:
		return 0, fmt.Errorf("unknown function %q; want up or add", name)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	w := bufio.NewWriterSize(out, 64<<10)
	n := 0
	for sc.Scan() {
		n++
		if err := apply(w, sc.Bytes()); err != nil {
			return n, fmt.Errorf("record %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	return n, w.Flush()
}

func add(a, b int) int { return a + b }
