package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/replhost/replhost/audit"
	"github.com/replhost/replhost/internal/testhost"
	gossh "golang.org/x/crypto/ssh"
)

// readAudit parses every line of the audit log; a line that does not parse,
// or a last line without its newline, fails the test.
func readAudit(t *testing.T, path string) []audit.Line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("audit log ends in a torn line: %q", data[max(0, len(data)-200):])
	}
	var lines []audit.Line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		var l audit.Line
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Errorf("audit line %d does not parse: %v: %q", n, err, sc.Text())
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// evalOn runs one eval exec command; for goroutines (no t.Fatal).
func evalOn(c *gossh.Client, id, code string) error {
	s, err := c.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	out, err := s.CombinedOutput("eval --session " + id + " " + code)
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// The audit log of a real host: the login with its key, the session's
// creation, and exactly one line per cell for 100 cells, each with its
// outcome, duration and the sha256 of its code (and, with --audit-code,
// the code).
func TestAuditLogHasOneLinePerCell(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	h := startHostProc(t, root, "--audit-log", logPath, "--audit-code")
	c := dialHost(t, h)
	id := strings.TrimSpace(testhost.RunOn(t, c, "new", "").Stdout)
	for i := range 100 {
		code := fmt.Sprintf("x%d := %d", i, i)
		if i == 99 {
			code = "undefinedThing()"
		}
		if r := testhost.RunOn(t, c, "eval --session "+id+" "+code, ""); (r.Status == 0) == (i == 99) {
			t.Fatalf("cell %d: %+v", i, r)
		}
	}
	h.Stop(t)
	lines := readAudit(t, logPath)
	var cells []audit.Line
	var login, created bool
	for _, l := range lines {
		switch l.Event {
		case "cell":
			if l.Session == id {
				cells = append(cells, l)
			}
		case "login":
			login = login || (l.User == "tester" && strings.HasPrefix(l.Key, "SHA256:") && strings.HasPrefix(l.Remote, "127.0.0.1:"))
		case "session-created":
			created = created || (l.Session == id && l.User == "tester")
		}
	}
	if !login || !created {
		t.Errorf("login line %v, session-created line %v; want both", login, created)
	}
	if len(cells) != 100 {
		t.Fatalf("%d cell lines for 100 cells", len(cells))
	}
	for i, l := range cells {
		code, outcome := fmt.Sprintf("x%d := %d", i, i), "ok"
		if i == 99 {
			code, outcome = "undefinedThing()", "error"
		}
		if l.User != "tester" || l.Outcome != outcome || l.CodeSHA256 != sha(code) || l.Code == nil || *l.Code != code || l.DurationMS == nil {
			t.Errorf("cell %d: %+v; want user tester, outcome %s, sha256 and code of %q, a duration", i, l, outcome, code)
		}
	}
}

// A host killed with SIGKILL while cells run on two connections leaves an
// audit log of whole lines only, one per cell that finished before it.
func TestAuditLogHasNoTornLineAfterSIGKILL(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	h := startHostProc(t, root, "--audit-log", logPath, "--audit-code")
	c1, c2 := dialHost(t, h), dialHost(t, h)
	id1 := strings.TrimSpace(testhost.RunOn(t, c1, "new", "").Stdout)
	id2 := strings.TrimSpace(testhost.RunOn(t, c2, "new", "").Stdout)
	// Long cells, so that lines are large and writes in flight.
	long := `s := "` + strings.Repeat("a", 32<<10) + `"`
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // keeps cells running until the host dies
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if evalOn(c2, id2, long) != nil {
				return
			}
		}
	}()
	for i := range 50 {
		if err := evalOn(c1, id1, long); err != nil {
			t.Fatalf("cell %d: %v", i, err)
		}
	}
	h.Kill() // SIGKILL, with c2's cells still coming
	close(stop)
	wg.Wait()
	lines := readAudit(t, logPath)
	n := 0
	for _, l := range lines {
		if l.Event == "cell" && l.Session == id1 {
			n++
		}
	}
	if n != 50 {
		t.Errorf("%d cell lines of the first session; want the 50 that finished", n)
	}
}

// Uploads, removals and UDF calls are audited with their sizes, hashes and
// record counts; the same events reach /metrics.
func TestAuditLogOfArtifactsAndUDFCalls(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	h := startHostProc(t, root, "--audit-log", logPath, "--metrics-listen", "127.0.0.1:0")
	c := dialHost(t, h)
	id := strings.TrimSpace(testhost.RunOn(t, c, "new", "").Stdout)
	const body = "hello, audit\n"
	if r := testhost.RunOn(t, c, "artifacts add --session "+id+" files/a.txt", body); r.Status != 0 {
		t.Fatalf("artifacts add: %+v", r)
	}
	if r := testhost.RunOn(t, c, "artifacts rm --session "+id+" files/a.txt", ""); r.Status != 0 {
		t.Fatalf("artifacts rm: %+v", r)
	}
	expectOn(t, c, "eval --session "+id+` import "udf"; import "errors"; udf.Register("up", func(s string) (string, error) { if s == "bad" { return "", errors.New("bad record") }; return s + "!", nil })`, "")
	if r := testhost.RunOn(t, c, "udf call --session "+id+" up", "a\nbad\nc"); r.Stdout != "a!\nc!\n" || !strings.Contains(r.Stderr, "bad record") {
		t.Fatalf("udf call: %+v", r)
	}
	_, metrics := scrapeMetrics(t, h, "/metrics")
	h.Stop(t)
	var added, removed, called bool
	for _, l := range readAudit(t, logPath) {
		switch {
		case l.Event == "artifact-added" && l.Session == id:
			added = l.Name == "files/a.txt" && l.Size != nil && *l.Size == int64(len(body)) && l.SHA256 == sha(body)
		case l.Event == "artifact-removed" && l.Session == id:
			removed = l.Name == "files/a.txt"
		case l.Event == "udf-call" && l.Session == id:
			called = l.Name == "up" && l.Records != nil && *l.Records == 3 && l.Failed != nil && *l.Failed == 1
			if !called {
				t.Errorf("udf-call line %+v; want up, 3 records, 1 failed", l)
			}
		}
	}
	if !added || !removed || !called {
		t.Errorf("artifact-added %v, artifact-removed %v, udf-call %v; want each, with its fields", added, removed, called)
	}
	wantMetrics(t, metrics,
		`replhost_artifacts_total{change="added"} 1`,
		`replhost_artifacts_total{change="removed"} 1`,
		fmt.Sprintf(`replhost_artifact_bytes_total %d`, len(body)),
		`replhost_udf_records_total{result="ok"} 2`,
		`replhost_udf_records_total{result="failed"} 1`,
	)
}
