package sshd_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sshd"
	gossh "golang.org/x/crypto/ssh"
)

const mib = 1 << 20

// rssBound is a memory bound of a test, widened under the race detector,
// whose shadow memory multiplies what the host allocates.
func rssBound(n int64) int64 {
	if raceEnabled() {
		return 4 * n
	}
	return n
}

// Env requests: the allowlist is kept, the rest refused and not stored,
// and the count and bytes are capped. 300 requests of 200 KB do not stay
// in the host.
func TestEnvRequestsAreBounded(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	c := h.Dial(t, "alice")
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Setenv("LANG", "C.UTF-8"); err != nil {
		t.Errorf("LANG refused: %v", err)
	}
	if err := s.Setenv("LD_PRELOAD", "/tmp/x.so"); err == nil {
		t.Error("LD_PRELOAD accepted")
	}
	accepted := 1
	for i := range 20 {
		if s.Setenv("LC_X"+strings.Repeat("Y", i), "v") == nil {
			accepted++
		}
	}
	if accepted != 16 {
		t.Errorf("%d env variables accepted; want the cap of 16", accepted)
	}
	// FreeOSMemory, not GC: RSS then counts what is live, not the heap
	// the GC pacer grew to while 60 MB of packets went by (under load the
	// scavenger had not yet returned it, 32-45 MiB "growth" of nothing kept).
	debug.FreeOSMemory()
	before := procStatus(t, "VmRSS")
	big := strings.Repeat("x", 200<<10)
	for range 300 {
		s.Setenv("LC_BIG", big) // refused: past the cap
	}
	debug.FreeOSMemory()
	after := procStatus(t, "VmRSS")
	t.Logf("host RSS %d MiB before 300 env requests of 200 KB, %d MiB after", before/mib, after/mib)
	if after-before > rssBound(30*mib) {
		t.Errorf("host RSS grew %d MiB over 300 refused env requests of 200 KB (60 MB sent)", (after-before)/mib)
	}
	var out strings.Builder
	s.Stdout = &out
	if err := s.Run("eval 1"); err != nil || out.String() != "1\n" {
		t.Errorf("the session after the env requests: %q, %v", out.String(), err)
	}
}

// A bracketed paste without its end marker, and a line without a newline,
// are dropped as they arrive once past the cell limit: one error line, the
// session goes on, and the host never holds them.
func TestPasteAndLineOverTheCellLimit(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	for _, tt := range []struct{ name, start, end string }{
		{"paste", "\x1b[200~", "\x1b[201~"},
		{"line", "", "\r"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			term := h.Terminal(t, "alice", "")
			term.Expect("go> ")
			runtime.GC()
			base := resetPeakRSS(t)
			term.Send(tt.start)
			w := term.Input()
			if _, err := io.CopyN(w, pattern{'7'}, 64*mib); err != nil {
				t.Fatal(err)
			}
			// The SSH window is a few MiB: by now the host has read all
			// but that much, and held none of it.
			peak := procStatus(t, "VmHWM")
			t.Logf("%s of 64 MiB: host RSS %d MiB before, peak %d MiB", tt.name, base/mib, peak/mib)
			if peak-base > rssBound(48*mib) {
				t.Errorf("host peak RSS grew %d MiB over a 64 MiB %s", (peak-base)/mib, tt.name)
			}
			term.Send(tt.end)
			term.Expect(`input larger than the cell limit of 1 MiB; discarded`)
			term.Send("1+1\r")
			term.Expect(`\r\n2\r\n`)
			term.Send(":quit\r")
			term.Wait()
		})
	}
}

// A script over the cell limit is refused as it streams: 12 of 50 MiB at
// once cost the host far less than one of them held whole.
func TestScriptsOverTheCellLimitAreRefusedAsTheyStream(t *testing.T) {
	// Admission wide open: this test is about what the scripts cost.
	h := testhost.Start(t, testhost.Options{SSH: sshd.Config{MaxStartups: sshd.MaxStartups{Start: 100, Rate: 30, Full: 100}, PerSourceMaxStartups: -1}})
	runtime.GC()
	base := resetPeakRSS(t)
	errs := make(chan string, 12)
	for range 12 {
		go func() {
			c, err := gossh.Dial("tcp", h.Addr, h.ClientConfig("alice"))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer c.Close()
			s, err := c.NewSession()
			if err != nil {
				errs <- err.Error()
				return
			}
			var stderr strings.Builder
			s.Stdin = io.LimitReader(pattern{'\n'}, 50*mib)
			s.Stderr = &stderr
			err = s.Shell()
			if err == nil {
				err = s.Wait()
			}
			if ee, ok := err.(*gossh.ExitError); !ok || ee.ExitStatus() != 1 {
				errs <- "status: " + errString(err)
				return
			}
			errs <- stderr.String()
		}()
	}
	for range 12 {
		if got := <-errs; !strings.Contains(got, "script larger than the cell limit of 1 MiB") {
			t.Errorf("a 50 MiB script: %q", got)
		}
	}
	peak := procStatus(t, "VmHWM")
	t.Logf("12 scripts of 50 MiB: host RSS %d MiB before, peak %d MiB", base/mib, peak/mib)
	if peak-base > rssBound(128*mib) {
		t.Errorf("host peak RSS grew %d MiB over 12 refused 50 MiB scripts", (peak-base)/mib)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// A history file grown past its bound is trimmed to its newest entries
// before readline reads it, and a cell too long to keep is run but not
// kept.
func TestHistoryIsBoundedInBytes(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	file := filepath.Join(h.Root, "users", "alice", "history")
	f, err := os.Create(file) // 48 MiB of entries, a 2 MiB one, and the newest
	if err != nil {
		t.Fatal(err)
	}
	chunk := strings.Repeat("1+1\n", mib/4)
	for range 48 {
		f.WriteString(chunk)
	}
	f.WriteString(strings.Repeat("9", 2*mib) + "\n40+2\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	base := resetPeakRSS(t)
	term := h.Terminal(t, "alice", "")
	term.Expect("go> ")
	peak := procStatus(t, "VmHWM")
	t.Logf("login with a 50 MiB history: host RSS %d MiB before, peak %d MiB", base/mib, peak/mib)
	if peak-base > rssBound(64*mib) {
		t.Errorf("host peak RSS grew %d MiB at a login with a 50 MiB history", (peak-base)/mib)
	}
	if st, err := os.Stat(file); err != nil || st.Size() > mib {
		t.Errorf("history file after login: %v, %v; want at most 1 MiB", st.Size(), err)
	}
	term.Send("\x1b[A\r") // the newest entry survived the trim
	term.Expect(`\r\n42\r\n`)
	long := `s := "` + strings.Repeat("a", 20<<10) + `"`
	term.Send("\x1b[200~" + long + "\x1b[201~\r")
	term.Send("len(s)\r")
	term.Expect(`\r\n20480\r\n`)
	term.Send(":quit\r")
	term.Wait()
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), strings.Repeat("a", 20<<10)) {
		t.Error("a 20 KiB cell was kept in the history")
	}
	if !strings.Contains(string(data), "len(s)") {
		t.Errorf("short cells were not kept: %q", data[max(0, len(data)-200):])
	}
}
