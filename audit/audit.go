// Package audit writes the host's audit log: one JSON object per line, one
// line per event (logins, session lifecycle, cells, artifacts, UDF calls),
// rotated by size.
//
// Each line reaches the file in one write(2) of the whole line, so a host
// killed at any moment (SIGKILL, a power cut aside) leaves only whole lines.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/replhost/replhost/repl"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Options configure a Log; each zero value has the meaning its comment gives.
type Options struct {
	// Path is the log file; required. Rotated files sit beside it with a
	// timestamp in their names.
	Path string
	// MaxSize rotates the file when it would pass this many bytes; zero:
	// 100 MiB. Rounded up to whole MiB (lumberjack's unit).
	MaxSize int64
	// MaxBackups is how many rotated files are kept; zero: all.
	MaxBackups int
	// Code logs each cell's source besides its hash; false: the hash only.
	Code bool
	// Now stamps the lines; nil: time.Now.
	Now func() time.Time
	// Errors is told when a line could not be written; nil: discarded.
	Errors *slog.Logger
}

// Log is an audit log. Record is safe for concurrent use.
type Log struct {
	opts Options
	mu   sync.Mutex // one line at a time into w
	w    io.WriteCloser
}

// Open opens (or creates, mode 0600) the log at opts.Path.
func Open(opts Options) *Log {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = 100 << 20
	}
	if opts.Errors == nil {
		opts.Errors = slog.New(slog.DiscardHandler)
	}
	w := &lumberjack.Logger{
		Filename:   opts.Path,
		MaxSize:    int((opts.MaxSize + 1<<20 - 1) >> 20),
		MaxBackups: opts.MaxBackups,
	}
	return &Log{opts: opts, w: w}
}

// Line is one audit line as written. Fields a kind does not use are left
// out.
type Line struct {
	Time       time.Time `json:"time"`
	Event      string    `json:"event"`
	User       string    `json:"user,omitempty"`
	Session    string    `json:"session,omitempty"`
	Remote     string    `json:"remote,omitempty"`
	Key        string    `json:"key,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Outcome    string    `json:"outcome,omitempty"`
	DurationMS *float64  `json:"duration_ms,omitempty"`
	CodeSHA256 string    `json:"code_sha256,omitempty"`
	Code       *string   `json:"code,omitempty"`
	Cells      *int      `json:"cells,omitempty"`
	Name       string    `json:"name,omitempty"`
	Size       *int64    `json:"size,omitempty"`
	SHA256     string    `json:"sha256,omitempty"`
	Records    *int      `json:"records,omitempty"`
	Failed     *int      `json:"failed,omitempty"`
}

// lineOf turns an event into its line.
func (l *Log) lineOf(e repl.Event) Line {
	ln := Line{Time: l.opts.Now().UTC(), Event: string(e.Kind), User: e.User, Session: e.Session,
		Remote: e.Remote, Key: e.Key, Reason: e.Reason, Outcome: e.Outcome, Name: e.Name, SHA256: e.SHA256}
	switch e.Kind {
	case repl.EventCell:
		sum := sha256.Sum256([]byte(e.Code))
		ln.CodeSHA256 = hex.EncodeToString(sum[:])
		if l.opts.Code {
			ln.Code = &e.Code
		}
		ln.DurationMS = ms(e.Duration)
	case repl.EventSessionRestored:
		ln.DurationMS = ms(e.Duration)
		ln.Cells = &e.Cells
	case repl.EventArtifactAdded:
		ln.Size = &e.Size
	case repl.EventUDFCall:
		ln.Records, ln.Failed = &e.Records, &e.Failed
	}
	return ln
}

func ms(d time.Duration) *float64 {
	v := float64(d.Microseconds()) / 1000
	return &v
}

// Record writes one line for e. A line that cannot be written is reported
// to Options.Errors; the host goes on.
func (l *Log) Record(e repl.Event) {
	ln := l.lineOf(e)
	b, err := json.Marshal(ln)
	if err != nil {
		l.opts.Errors.Error("audit log: encode", "event", ln.Event, "err", err)
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	// One Write of the whole line: lumberjack passes it to os.File.Write,
	// one write(2) for a regular file.
	if _, err := l.w.Write(b); err != nil {
		l.opts.Errors.Error("audit log: write", "event", ln.Event, "err", err)
	}
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}
