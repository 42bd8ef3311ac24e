// Package sftpd serves the sftp view of one user's sessions, with
// github.com/pkg/sftp request handlers: "/" lists the user's own sessions,
// "/<uuid>/" holds that session's classes/src/, files/ and archives/, and
// every write goes through the session's artifacts.Store (same name checks,
// same atomic verified commit, archives unpacked), so an upload cut off
// half-way leaves nothing.
package sftpd

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/artifacts"
)

// Sessions is what the sftp view needs from the session manager.
type Sessions interface {
	// List returns the ids (uuids) of user's live sessions.
	List(user string) []string
	// Store returns the artifact store of session id; it must fail for a
	// session that is not user's.
	Store(user, id string) (*artifacts.Store, error)
}

// Serve runs the sftp subsystem for user on ch until the client goes away,
// and returns nil then. It ends ch: with Exit(0) if ch has that method. It is what an ssh server's "sftp" subsystem handler
// calls. If ch has a Stderr() (an ssh session has), each refused upload or
// command is also reported there in one line, since OpenSSH's sftp and scp
// print only the status code of a failure, not its text.
func Serve(ch io.ReadWriteCloser, s Sessions, user string) error {
	var errs io.Writer
	if e, ok := ch.(interface{ Stderr() io.ReadWriter }); ok {
		errs = e.Stderr()
	}
	srv := sftp.NewRequestServer(ender{ch}, Handler(s, user, errs))
	err := srv.Serve()
	srv.Close()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// ender ends ch when the request server closes it: with Exit(0) if ch has
// it (an ssh session: the exit status goes first, then the channel closes),
// else with Close. A channel closed without an exit status makes OpenSSH's
// ssh exit 255, which scp reports as a failed copy after a good upload.
type ender struct{ io.ReadWriteCloser }

func (e ender) Close() error {
	if x, ok := e.ReadWriteCloser.(interface{ Exit(int) error }); ok {
		return x.Exit(0)
	}
	return e.ReadWriteCloser.Close()
}

// Handler returns the request handlers of user's view of s. Refusals are
// written to errs, one line each, if it is not nil.
func Handler(s Sessions, user string, errs io.Writer) sftp.Handlers {
	h := &handler{s: s, user: user, errs: errs, start: time.Now(), open: map[string]int{}}
	return sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
}

// handler serves one user's sftp requests. The request server calls it from
// several goroutines; mu guards what changes.
type handler struct {
	s     Sessions
	user  string
	start time.Time // the mtime of "/"

	mu   sync.Mutex // guards errs and open
	errs io.Writer
	open map[string]int // sftp path → uploads in progress to it
}

// report writes a refusal to errs, if there is one.
func (h *handler) report(err error) {
	if h.errs == nil || err == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	io.WriteString(h.errs, err.Error()+"\n")
}
