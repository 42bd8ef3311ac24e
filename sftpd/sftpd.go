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
	// Elsewhere names the host that holds session id when Store failed
	// with err because another live host holds it (a cluster); ok is
	// false otherwise: the session is served here or not at all.
	Elsewhere(user, id string, err error) (host string, ok bool)
	// Dial opens user's sftp view on host, which serves the sessions it
	// holds under the same paths. It is called once per host and
	// connection; the Remote is closed when the connection ends.
	Dial(user, host string) (*Remote, error)
}

// Remote is user's sftp view on another host, through which the requests
// for the sessions that host holds are carried.
type Remote struct {
	Client *sftp.Client
	// Stderr is the other host's refusal lines, passed on to this
	// connection's; nil if there are none.
	Stderr io.Reader
	// Close ends the connection to the other host; called once. Uploads
	// in flight there are aborted, never committed, by it.
	Close func()
}

// Limits bound what sftp requests may hold on the host. A zero field is
// the field of DefaultLimits.
type Limits struct {
	// MaxHandles caps the open handles (files and folders) of one
	// connection; an open past it fails with a status saying so.
	MaxHandles int
	// MaxUserFiles caps the host descriptors held by one user's open
	// files across all of that user's connections, so that one user can
	// never take the descriptors other users' logins need.
	MaxUserFiles int
}

// DefaultLimits are the limits a zero Limits stands for.
var DefaultLimits = Limits{MaxHandles: 64, MaxUserFiles: 256}

func (l Limits) orDefaults() Limits {
	if l.MaxHandles <= 0 {
		l.MaxHandles = DefaultLimits.MaxHandles
	}
	if l.MaxUserFiles <= 0 {
		l.MaxUserFiles = DefaultLimits.MaxUserFiles
	}
	return l
}

// Server serves the sftp subsystem to any number of connections, counting
// each user's host descriptors across them. The zero value is ready to use
// with DefaultLimits. Limits must not change once Serve was called.
type Server struct {
	Limits Limits

	mu    sync.Mutex     // guards files
	files map[string]int // user → descriptors held by open files
}

// DefaultServer is the Server of Serve. Descriptors are the host process's,
// so one count per user for the whole process is what protects them.
var DefaultServer = &Server{}

// Serve runs the sftp subsystem of DefaultServer for user on ch.
func Serve(ch io.ReadWriteCloser, s Sessions, user string) error {
	return DefaultServer.Serve(ch, s, user)
}

// Serve runs the sftp subsystem for user on ch until the client goes away,
// and returns nil then. It ends ch: with Exit(0) if ch has that method. It
// is what an ssh server's "sftp" subsystem handler calls. If ch has a
// Stderr() (an ssh session has), each refused upload or command is also
// reported there in one line, since OpenSSH's sftp and scp print only the
// status code of a failure, not its text.
func (srv *Server) Serve(ch io.ReadWriteCloser, s Sessions, user string) error {
	var errs io.Writer
	if e, ok := ch.(interface{ Stderr() io.ReadWriter }); ok {
		errs = e.Stderr()
	}
	// The allocator reuses packet buffers instead of a fresh one per
	// packet (less GC per upload); safe because no handler keeps a
	// WriteAt buffer after it returns.
	h := srv.newHandler(s, user, errs)
	rs := sftp.NewRequestServer(newChannel(ch, h.lim.MaxHandles), h.handlers(),
		sftp.WithRSAllocator(), sftp.WithRSMaxTxPacket(maxReadWrite))
	err := rs.Serve() // closes every handle left open before it returns
	h.closeRemotes()  // after: a cut upload's TransferError aborts through them
	rs.Close()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// takeFile counts one more descriptor for user, or fails past the cap.
func (srv *Server) takeFile(user string) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.files == nil {
		srv.files = map[string]int{}
	}
	if srv.files[user] >= srv.Limits.orDefaults().MaxUserFiles {
		return false
	}
	srv.files[user]++
	return true
}

// dropFile gives back one of user's descriptors.
func (srv *Server) dropFile(user string) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.files[user]--; srv.files[user] <= 0 {
		delete(srv.files, user)
	}
}

// UserFiles is how many host descriptors user's open sftp files hold now.
func (srv *Server) UserFiles(user string) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.files[user]
}

// newHandler is the handler of one connection of user's view of s.
// Refusals are written to errs, one line each, if it is not nil.
func (srv *Server) newHandler(s Sessions, user string, errs io.Writer) *handler {
	return &handler{srv: srv, lim: srv.Limits.orDefaults(), s: s, user: user, errs: errs,
		start: time.Now(), open: map[string]int{}}
}

func (h *handler) handlers() sftp.Handlers {
	return sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
}

// handler serves one connection of a user's sftp requests. The request
// server calls it from several goroutines; mu guards what changes.
type handler struct {
	srv   *Server
	lim   Limits
	s     Sessions
	user  string
	start time.Time // the mtime of "/"

	rmu      sync.Mutex         // guards hosts and sessions; never held across a request to a host
	hosts    map[string]*remote // host → the connection to its view
	sessions map[string]*remote // session id → the host holding it, as last found
	passing  sync.WaitGroup     // the goroutines passing other hosts' stderr on

	mu      sync.Mutex // guards errs, open and handles
	errs    io.Writer
	open    map[string]int // sftp path → uploads in progress to it
	handles int            // handles open on this connection
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
