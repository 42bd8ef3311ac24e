package sshd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replhost/replhost/internal/testhost"
	"github.com/replhost/replhost/sandbox"
)

// envProbe prints what the session's code sees of its environment.
const envProbe = `import ("fmt"; "os"); fmt.Println(os.Getenv("LANG"), os.Getenv("LC_TIME"), os.Getenv("TERM"), os.Getenv("USER"), os.Getenv("LOGNAME"), ` +
	`os.Getenv("LD_PRELOAD") == "", os.Getenv("LC_ODD") == "", os.Getenv("REPLHOST_CHANNEL") == "", strings.HasPrefix(os.Getenv("SSH_CONNECTION"), "127.0.0.1 "), os.Getenv("PATH"))`

// The variables an x/crypto client sends (Setenv) that the host accepts
// reach the session's code through os.Getenv, with USER, LOGNAME and
// SSH_CONNECTION and PATH as OpenSSH sets them; refused or malformed ones do not,
// and in-process sessions leave the host's own environment alone.
func TestClientEnvReachesTheSession(t *testing.T) {
	for _, mode := range []struct {
		name    string
		process bool
	}{{"worker", true}, {"inproc", false}} {
		t.Run(mode.name, func(t *testing.T) {
			h := testhost.Start(t, testhost.Options{Process: mode.process})
			s, err := h.Dial(t, "alice").NewSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, kv := range [][2]string{{"LANG", "de_DE.UTF-8"}, {"LC_TIME", "C"}, {"TERM", "xterm-256color"}} {
				if err := s.Setenv(kv[0], kv[1]); err != nil {
					t.Errorf("Setenv %s refused: %v", kv[0], err)
				}
			}
			if err := s.Setenv("LD_PRELOAD", "/tmp/x.so"); err == nil {
				t.Error("LD_PRELOAD accepted")
			}
			s.Setenv("LC_ODD\x00", "v")  // not a shell name: dropped if accepted
			s.Setenv("LC_ODD", "a\x00b") // a NUL: dropped
			var out, errOut strings.Builder
			s.Stdout, s.Stderr = &out, &errOut
			if err := s.Run("eval import \"strings\"; " + envProbe); err != nil {
				t.Fatalf("eval: %v, stderr %q", err, errOut.String())
			}
			if want := "de_DE.UTF-8 C xterm-256color alice alice true true true true " + sandbox.StdPath + "\n"; out.String() != want {
				t.Errorf("the code sees %q; want %q", out.String(), want)
			}
			if v := os.Getenv("LC_TIME"); v == "C" && !mode.process {
				t.Errorf("the host's own LC_TIME is the client's")
			}
		})
	}
}

// A PTY's terminal type is the session's TERM; one with a NUL is dropped,
// and the session still starts.
func TestPtyTermIsTheSessionsTerm(t *testing.T) {
	h := testhost.Start(t, testhost.Options{})
	for _, tc := range []struct{ term, want string }{
		{"vt220", "\"vt220\"\n"},
		{"vt\x00220", "\"\"\n"},
	} {
		s, err := h.Dial(t, "alice").NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RequestPty(tc.term, 24, 80, nil); err != nil {
			t.Fatalf("pty %q: %v", tc.term, err)
		}
		out, err := s.CombinedOutput(`eval import "os"; os.Getenv("TERM")`)
		if got := strings.ReplaceAll(string(out), "\r\n", "\n"); err != nil || got != tc.want {
			t.Errorf("pty %q: TERM shown %q (%v); want %q", tc.term, got, err, tc.want)
		}
		s.Close()
	}
}

// A key with command= forces its command; the command the client asked
// for is the session's SSH_ORIGINAL_COMMAND, as with OpenSSH's sshd (in a
// worker, and in the session a forced `new` makes).
func TestForcedCommandSeesTheOriginalCommand(t *testing.T) {
	h := testhost.Start(t, testhost.Options{Process: true})
	path := filepath.Join(h.Root, "users", "alice", "authorized_keys")
	keys, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(strings.SplitN(string(keys), "\n", 2)[0])
	forced := `command="eval import (\"fmt\"; \"os\"); fmt.Println(os.Getenv(\"SSH_ORIGINAL_COMMAND\") + \"|\")" `
	if err := os.WriteFile(path, []byte(forced+line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cmd, want string }{
		{`eval fmt.Println("asked")`, `eval fmt.Println("asked")|` + "\n"},
		{"sessions", "sessions|\n"},
		{"", "|\n"}, // a shell: no original command
	} {
		c := h.Dial(t, "alice")
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut strings.Builder
		s.Stdout, s.Stderr = &out, &errOut
		if tc.cmd == "" {
			err = s.Shell()
			if err == nil {
				err = s.Wait()
			}
		} else {
			err = s.Run(tc.cmd)
		}
		if err != nil || out.String() != tc.want {
			t.Errorf("asked %q: got %q (%v, stderr %q); want %q", tc.cmd, out.String(), err, errOut.String(), tc.want)
		}
		s.Close()
		c.Close()
	}
}
