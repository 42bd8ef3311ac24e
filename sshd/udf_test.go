package sshd_test

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

func newSession(tb testing.TB, h *testhost.Host, user string) string {
	tb.Helper()
	r := h.Run(tb, user, "new", "")
	if r.Status != 0 {
		tb.Fatalf("new: %+v", r)
	}
	return strings.TrimSpace(r.Stdout)
}

func mustEval(tb testing.TB, h *testhost.Host, user, id, code string) testhost.Result {
	tb.Helper()
	r := h.Run(tb, user, "eval --session "+id+" "+code, "")
	if r.Status != 0 {
		tb.Fatalf("eval %q: %+v", code, r)
	}
	return r
}

// Two sessions register "clean" with different code; each call runs its own.
func TestUDFsPerSession(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	a := newSession(t, h, "alice")
	b := newSession(t, h, "bob")
	mustEval(t, h, "alice", a, `import "udf"; import "strings"; udf.Register("clean", func(s string) string { return strings.ToUpper(strings.TrimSpace(s)) })`)
	mustEval(t, h, "bob", b, `import "udf"; import "strings"; udf.Register("clean", func(s string) string { return strings.ReplaceAll(s, " ", "") })`)
	in := " a b \n c \n"
	if r := h.Run(t, "alice", "udf call --session "+a+" clean", in); r.Stdout != "A B\nC\n" || r.Status != 0 {
		t.Errorf("alice's clean: %+v", r)
	}
	if r := h.Run(t, "bob", "udf call --session "+b+" clean", in); r.Stdout != "ab\nc\n" || r.Status != 0 {
		t.Errorf("bob's clean: %+v", r)
	}
	// JSON arguments for any other signature, JSON results for non-strings.
	mustEval(t, h, "alice", a, `udf.Register("add", func(x, y int) int { return x + y })`)
	if r := h.Run(t, "alice", "udf call --session "+a+" add", "[1,2]\n[40,2]\n"); r.Stdout != "3\n42\n" {
		t.Errorf("add: %+v", r)
	}
}

func TestBadUDFs(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := newSession(t, h, "alice")
	mustEval(t, h, "alice", id, `import "udf"`)
	tests := []struct {
		name, code, wantErr string
	}{
		{"not-a-function", `udf.Register("x", 42)`, `want a function`},
		{"variadic", `udf.Register("x", func(s ...string) string { return "" })`, `variadic`},
		{"channel-argument", `udf.Register("x", func(c chan int) int { return 0 })`, `channel`},
		{"too-many-results", `udf.Register("x", func(s string) (string, int, error) { return "", 0, nil })`, `results`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.Run(t, "alice", "eval --session "+id+" "+tt.code, "")
			if r.Status != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, tt.wantErr) {
				t.Errorf("got %+v; want one error line with %q", r, tt.wantErr)
			}
		})
	}
	mustEval(t, h, "alice", id, `udf.Register("twice", func(s string) string { return "old" })`)
	r := mustEval(t, h, "alice", id, `udf.Register("twice", func(s string) string { return "new" })`)
	if !strings.Contains(r.Stderr, `"twice" replaced`) {
		t.Errorf("re-registering said %+v; want a notice that it replaced the old one", r)
	}
	if r := h.Run(t, "alice", "udf call --session "+id+" twice", "x\n"); r.Stdout != "new\n" {
		t.Errorf("after re-register: %+v; want new", r)
	}
	r = h.Run(t, "alice", "udf call --session "+id+" nosuch", "x\n")
	if r.Status == 0 || r.Stderr != "error: udf: no function \"nosuch\" registered in this session (:udfs lists them)\n" {
		t.Errorf("unknown UDF: %+v", r)
	}
}

// streamUDF pipes n generated lines through a UDF over one SSH channel and
// checks every output line as it arrives, holding none of them.
func streamUDF(t *testing.T, c *gossh.Client, id, name string, n int, want func(i int) (string, bool)) (results, errLines int) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stdin, _ := s.StdinPipe()
	stdout, _ := s.StdoutPipe()
	stderr, _ := s.StderrPipe()
	if err := s.Start("udf call --session " + id + " " + name); err != nil {
		t.Fatal(err)
	}
	go func() {
		w := bufio.NewWriterSize(stdin, 64<<10)
		for i := 1; i <= n; i++ {
			w.WriteString(strconv.Itoa(i))
			w.WriteByte('\n')
		}
		w.Flush()
		stdin.Close()
	}()
	errDone := make(chan int)
	go func() {
		sc := bufio.NewScanner(stderr)
		k := 0
		for sc.Scan() {
			k++
		}
		errDone <- k
	}()
	sc := bufio.NewScanner(stdout)
	i := 0
	for sc.Scan() {
		i++
		for {
			w, ok := want(i)
			if ok {
				if sc.Text() != w {
					t.Fatalf("output line %d = %q; want %q", results+1, sc.Text(), w)
				}
				break
			}
			i++ // a record that fails yields no output line
		}
		results++
	}
	io.Copy(io.Discard, stdout)
	errLines = <-errDone
	s.Wait()
	return results, errLines
}

func TestUDFMillionLinesInOrder(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	id := newSession(t, h, "alice")
	mustEval(t, h, "alice", id, `import "udf"; udf.Register("tag", func(s string) string { return "r" + s })`)
	mustEval(t, h, "alice", id, `import "strconv"; udf.Register("boom", func(s string) string {
	n, _ := strconv.Atoi(s)
	if n%1000 == 0 { panic("boom") }
	return s
})`)
	c := h.Dial(t, "alice")
	const n = 1_000_000
	res, errs := streamUDF(t, c, id, "tag", n, func(i int) (string, bool) { return "r" + strconv.Itoa(i), true })
	if res != n || errs != 0 {
		t.Errorf("tag: %d results, %d error lines; want %d, 0", res, errs, n)
	}
	res, errs = streamUDF(t, c, id, "boom", n, func(i int) (string, bool) { return strconv.Itoa(i), i%1000 != 0 })
	if res != n-n/1000 || errs != n/1000 {
		t.Errorf("boom: %d results, %d error lines; want %d, %d", res, errs, n-n/1000, n/1000)
	}
}
