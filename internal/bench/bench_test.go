package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bins holds replbench, replhost, replhost-worker and the yaegi CLI, built
// once in TestMain.
var bins string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "replbench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for out, pkgs := range map[string]string{
		filepath.Join(dir, "replbench"): "github.com/replhost/replhost/cmd/replbench",
		// replhost with its worker binary beside it, as the bench builds them.
		dir + "/":                   "github.com/replhost/replhost/cmd/replhost github.com/replhost/replhost/cmd/replhost-worker",
		filepath.Join(dir, "yaegi"): "github.com/traefik/yaegi/cmd/yaegi",
	} {
		if err := goBuild(out, pkgs, "CGO_ENABLED=0"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	bins = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// replbench is the bench command with the binaries built once.
func replbench(t *testing.T) string {
	t.Helper()
	return filepath.Join(bins, "replbench")
}

// anchorArgs compares with OpenSSH's sshd where it is installed; the test
// does not install it.
func anchorArgs(t *testing.T) []string {
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Log("no /usr/sbin/sshd: replhost only")
		return []string{"--no-anchor"}
	}
	return nil
}

func runBench(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"--replhost", filepath.Join(bins, "replhost"), "--yaegi", filepath.Join(bins, "yaegi")}, args...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("replbench %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

// TestQuickTable runs a tiny pass of every row through the real binaries
// (replbench building replhost and the yaegi CLI, both servers started by
// it) and checks the table has each row with a figure; not the figures.
func TestQuickTable(t *testing.T) {
	for _, tool := range []string{"ssh", "sftp", "scp", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no OpenSSH client (%s): %v", tool, err)
		}
	}
	out := runBench(t, replbench(t), append([]string{"--quick"}, anchorArgs(t)...)...)
	for _, metric := range []string{
		"eval round trip, open PTY session", "server CPU per cell", "bytes sent per 20-character cell",
		"cells through the front end, round trip", "memory growth per cell", "memory growth per cell, after 3s idle",
		"connect, one-line script, exit (OpenSSH ssh)", "same, Go client",
		"upload 1 MiB, sftp", "upload 1 MiB, scp", "idle PSS per session (3)", "idle PSS per session (3), after 3s idle",
		"logins/s", "login to first prompt", "UDF records/s, up-native-func", "UDF records/s, up-interpreted",
		"host start after SIGKILL", "restore: attach after the restart",
	} {
		line := lineWith(out, "| "+metric)
		if line == "" {
			t.Errorf("no row %q in:\n%s", metric, out)
			continue
		}
		if cells := strings.Split(line, "|"); len(cells) < 3 || strings.TrimSpace(cells[2]) == "" || strings.Contains(cells[2], "n/a") {
			t.Errorf("row %q has no figure for replhost: %s", metric, line)
		}
	}
}

// TestQuickLoadAndSoak holds 3 sessions at a cell a second, then churns
// sessions briefly, and checks no cell failed or saw another's state and
// that the host came back to its baseline.
func TestQuickLoadAndSoak(t *testing.T) {
	cellsFile := filepath.Join(t.TempDir(), "cells.csv")
	out := runBench(t, replbench(t), append([]string{"--quick", "--load", "3", "--load-duration", "2s", "--soak", "2s", "--load-cells", cellsFile}, anchorArgs(t)...)...)
	row := lineWith(out, "| 3 | replhost |")
	f := strings.Split(row, "|")
	if len(f) < 12 || strings.TrimSpace(f[3]) != "3/3" || strings.TrimSpace(f[9]) != "0" || strings.TrimSpace(f[10]) != "0" {
		t.Fatalf("load row: got %q; want 3/3 logged in, 0 errors, 0 mixed-up\n%s", row, out)
	}
	// The cells over 100 ms, as the client saw them and as the host timed them.
	if client, host, ok := strings.Cut(strings.TrimSpace(f[8]), " / "); !ok || !strings.HasSuffix(client, "%") || !strings.Contains(host, "% (> 102 ms)") {
		t.Errorf("load row's cells over 100 ms %q; want client and host-timed shares", f[8])
	}
	// --load-cells has one line per cell of the table, by session.
	b, err := os.ReadFile(cellsFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "server,sessions,session,start_ms,latency_us" {
		t.Errorf("--load-cells header %q", lines[0])
	}
	perSession := map[string]int{}
	for _, l := range lines[1:] {
		if c := strings.Split(l, ","); len(c) == 5 && c[0] == "replhost" && c[1] == "3" {
			perSession[c[2]]++
		}
	}
	total := 0
	for _, n := range perSession {
		total += n
	}
	if len(perSession) != 3 || strconv.Itoa(total) != strings.TrimSpace(f[4]) {
		t.Errorf("--load-cells: replhost cells by session %v; want sessions 0, 1, 2 and %s cells in all", perSession, strings.TrimSpace(f[4]))
	}
	if !strings.Contains(out, "0 errors; back at baseline") {
		t.Errorf("soak did not come back to baseline without errors:\n%s", out)
	}
}

func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestReplaceSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	os.WriteFile(path, []byte("# title\n\n"+beginMark+"\nold table\n"+endMark+"\n\n## kept\n"), 0o644)
	if err := replaceSection(path, "new table\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# title\n\n" + beginMark + "\nnew table\n\n" + endMark + "\n\n## kept\n"
	if string(got) != want {
		t.Errorf("got %q; want %q", got, want)
	}
	os.WriteFile(path, []byte("no markers\n"), 0o644)
	if err := replaceSection(path, "x"); err == nil || !strings.Contains(err.Error(), "no "+beginMark) {
		t.Errorf("without markers: got %v; want an error naming them", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "no markers\n" {
		t.Errorf("file changed to %q", got)
	}
}
