package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// rowUpload: one file of UploadMiB random bytes with OpenSSH's sftp -b and
// scp (default options), into a replhost session's files/ and into the
// anchor's plain sshd port (internal-sftp), alternating; the connection's
// set-up is inside each timing.
func rowUpload(r *run) error {
	src, err := randomFile(filepath.Join(r.dir, "upload.bin"), r.UploadMiB<<20)
	if err != nil {
		return err
	}
	defer os.Remove(src)
	id, err := r.newSession()
	if err != nil {
		return err
	}
	remote := map[*target]string{r.ours: "/" + id + "/files/"}
	if r.anch != nil {
		d := filepath.Join(r.dir, "anchor", "uploads")
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		remote[r.anch] = d + "/"
	}
	remove := func(t *target, name string) error {
		if t == r.anch {
			return os.Remove(filepath.Join(r.dir, "anchor", "uploads", name))
		}
		c, err := t.dial(waitLogin)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.exec("artifacts rm --session "+id+" files/"+name, nil, waitLogin)
		return err
	}
	tools := []string{"sftp", "scp"}
	rate := map[string]perSide[samples]{"sftp": {}, "scp": {}}
	rounds := min(r.Rounds, 3)
	bound := 10*time.Minute + time.Duration(r.UploadMiB)*time.Second
	for i := 0; i < rounds; i++ {
		for _, tool := range tools {
			for _, t := range r.order(i) {
				name := fmt.Sprintf("up-%s-%d.bin", tool, i)
				dest := remote[t] + name
				var cmd *exec.Cmd
				args := append(t.opensshArgs(r.knownHosts), "-P", t.sftpPort)
				if tool == "sftp" {
					cmd = exec.Command("sftp", append(args, "-b", "-", t.user+"@127.0.0.1")...)
					cmd.Stdin = strings.NewReader("put " + src + " " + dest + "\n")
				} else {
					cmd = exec.Command("scp", append(args, src, t.user+"@127.0.0.1:"+dest)...)
				}
				start := time.Now()
				if out, err := runBounded(cmd, bound); err != nil {
					return fmt.Errorf("%s: %s: %v: %s", t.name, tool, err, out)
				}
				// A sample is the time per MiB, so that its median is the median rate.
				rate[tool][t] = append(rate[tool][t], time.Since(start)/time.Duration(r.UploadMiB))
				if err := remove(t, name); err != nil {
					return fmt.Errorf("%s: remove %s: %w", t.name, name, err)
				}
			}
		}
	}
	mbps := func(s samples) float64 {
		if len(s) == 0 {
			return 0
		}
		return float64(1<<20) / 1e6 / s.median().Seconds()
	}
	for _, tool := range tools {
		v := perSide[float64]{}
		for t, s := range rate[tool] {
			v[t] = mbps(s)
		}
		r.pair(fmt.Sprintf("upload %d MiB, %s", r.UploadMiB, tool), v, func(x float64) string { return fmt.Sprintf("%.0f MB/s", x) },
			fmt.Sprintf("median of %d; replhost hashes (SHA-256) and fsyncs before the file is visible", rounds))
	}
	return nil
}

// randomFile writes n incompressible bytes to path.
func randomFile(path string, n int) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.NewChaCha8([32]byte{7})
	buf := make([]byte, 1<<20)
	for written := 0; written < n; written += len(buf) {
		rng.Read(buf)
		w.Write(buf[:min(len(buf), n-written)])
	}
	return path, w.Flush()
}

const udfs = `import "udf"; import "strings"
udf.Register("up-native-func", strings.ToUpper)
udf.Register("up-interpreted", func(s string) string { return strings.ToUpper(s) })`

// rowUDF: records per second through `udf call` (one Go client
// connection, records streamed in, every result line read), against the
// same function compiled natively over the same bytes in memory. The
// anchor has no UDFs.
func rowUDF(r *run) error {
	id, err := r.newSession()
	if err != nil {
		return err
	}
	c, err := r.ours.dial(waitLogin)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.exec("eval --session "+id+" "+udfs, nil, waitLogin); err != nil {
		return err
	}
	input := records(r.UDFRecords)
	want := bytes.ToUpper(input)
	rounds := min(r.Rounds, 3)
	var native samples
	for i := 0; i < rounds; i++ {
		start := time.Now()
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(input))
		w := bufio.NewWriterSize(&out, 64<<10)
		for sc.Scan() {
			w.WriteString(strings.ToUpper(sc.Text()))
			w.WriteByte('\n')
		}
		w.Flush()
		native = append(native, time.Since(start))
		if !bytes.Equal(out.Bytes(), want) {
			return fmt.Errorf("native: wrong output")
		}
	}
	perSec := func(d time.Duration) float64 { return float64(r.UDFRecords) / d.Seconds() }
	for _, name := range []string{"up-native-func", "up-interpreted"} {
		var s samples
		for i := 0; i < rounds; i++ {
			start := time.Now()
			out, err := c.exec("udf call --session "+id+" "+name, bytes.NewReader(input), 10*time.Minute)
			if err != nil {
				return err
			}
			s = append(s, time.Since(start))
			if out != string(want) {
				return fmt.Errorf("udf call %s: %d bytes of output, not the %d expected", name, len(out), len(want))
			}
		}
		r.rows = append(r.rows, row{"UDF records/s, " + name,
			fmt.Sprintf("%.2f M/s", perSec(s.median())/1e6),
			fmt.Sprintf("native Go: %.2f M/s", perSec(native.median())/1e6),
			ratio(perSec(s.median()), perSec(native.median())),
			fmt.Sprintf("%d records `hello world, record N`, strings.ToUpper; median of %d; native: the same loop compiled, in memory", r.UDFRecords, rounds)})
	}
	return nil
}

// records are n lines like the UDF benchmarks' records.
func records(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString("hello world, record ")
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// rowRestore: a detached session with RestoreCells cells in its journal;
// the host is killed (SIGKILL) and started again; timed: the start until
// it listens, and attach until the last cell's variable prints.
func rowRestore(r *run) error {
	t := r.ours
	var startup, attach samples
	for i := 0; i < min(r.Rounds, 3); i++ {
		id, err := r.newSession()
		if err != nil {
			return err
		}
		c, err := t.dial(waitLogin)
		if err != nil {
			return err
		}
		tm, err := c.term(t, "attach "+id, waitLogin)
		if err != nil {
			c.Close()
			return err
		}
		for j := 0; j < r.RestoreCells; j++ {
			if err := tm.run(fmt.Sprintf("r%d := %d * 2", j, j), waitCell); err != nil {
				c.Close()
				return err
			}
		}
		c.Close() // detached: kept for --session-ttl
		t.kill()
		s := time.Now()
		if err := t.start(); err != nil {
			return err
		}
		startup = append(startup, time.Since(s))
		s = time.Now()
		c, err = t.dial(waitLogin)
		if err != nil {
			return err
		}
		tm, err = c.term(t, "attach "+id, waitLogin)
		if err == nil {
			last := r.RestoreCells - 1
			err = tm.eval(fmt.Sprintf("r%d", last), strconv.Itoa(last*2), waitCell)
		}
		attach = append(attach, time.Since(s))
		if err == nil {
			_, err = io.WriteString(tm.in, ":quit\r")
		}
		c.Close()
		if err != nil {
			return fmt.Errorf("after restart: %w", err)
		}
	}
	r.rows = append(r.rows,
		row{"host start after SIGKILL, until it listens", startup.medP99(), "", "", "sessions on disk from the earlier rows included"},
		row{fmt.Sprintf("restore: attach after the restart until the value of cell %d prints", r.RestoreCells), attach.medP99(), "", "",
			fmt.Sprintf("journal of %d cells replayed in a new worker; the anchor cannot restore", r.RestoreCells)})
	return nil
}
