// Package admin is the host's local admin socket: ROOT/admin.sock, a unix
// socket of mode 0600 that only the host's own uid (or root) may use, the
// kernel's word for the peer's uid checked on every connection
// (SO_PEERCRED). Through it `replhost sessions --all`, `replhost kill UUID`
// and `replhost user rm` reach a running host. HTTP with JSON bodies on it:
// net/http does the framing, nothing is hand-rolled.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/replhost/replhost/repl"
	"golang.org/x/sys/unix"
)

// SocketName is the socket's name in the host root.
const SocketName = "admin.sock"

// SocketPath is the admin socket of root.
func SocketPath(root string) string { return filepath.Join(root, SocketName) }

// Sessions is what the admin socket operates on (a repl.Manager).
type Sessions interface {
	ListAll() []repl.Info
	KillAny(id string) error
	KillUser(owner string) int
}

// Drainer is what a cluster node adds: Drain hands its sessions off to
// other nodes and returns how many went at once.
type Drainer interface {
	Drain() (int, error)
}

// Listen makes root's admin socket. A socket a dead host left behind is
// replaced; one a live host answers on is not.
func Listen(root string) (net.Listener, error) {
	path := SocketPath(root)
	if c, err := dialUnix(path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("admin socket %s: another host is serving it", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	var l net.Listener
	err := viaShortPath(path, func(addr string) (err error) {
		l, err = net.Listen("unix", addr)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // by its real path, in Close
	// The root is 0700 already; the mode is the second lock, the peer's uid
	// the third.
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	return &peerListener{Listener: l, uid: os.Geteuid(), path: path}, nil
}

// maxSunPath is the room for a path in a unix socket address.
const maxSunPath = 107

// viaShortPath calls f with path, or, when path is too long for a socket
// address (a deep --root), with the same file named through the directory's
// descriptor: /proc/self/fd/N/admin.sock.
func viaShortPath(path string, f func(addr string) error) error {
	if len(path) <= maxSunPath {
		return f(path)
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return f(fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), filepath.Base(path)))
}

func dialUnix(path string, timeout time.Duration) (c net.Conn, err error) {
	err = viaShortPath(path, func(addr string) error {
		c, err = net.DialTimeout("unix", addr, timeout)
		return err
	})
	return c, err
}

// peerListener accepts only connections from uid or root.
type peerListener struct {
	net.Listener
	uid  int
	path string
}

// Close stops listening and removes the socket.
func (l *peerListener) Close() error {
	err := l.Listener.Close()
	os.Remove(l.path)
	return err
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if uid, err := peerUID(c); err == nil && (uid == l.uid || uid == 0) {
			return c, nil
		}
		c.Close()
	}
}

// peerUID is the uid of the process at the other end of a unix socket.
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, credErr
	}
	return int(cred.Uid), nil
}

// Serve answers admin requests on l until ctx ends.
func Serve(ctx context.Context, l net.Listener, s Sessions) error {
	srv := &http.Server{Handler: handler(s), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Session is one session in a listing.
type Session struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	State    string    `json:"state"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
}

type killed struct {
	Killed int `json:"killed"`
}

type drained struct {
	HandedOff int `json:"handed_off"`
}

type failure struct {
	Error string `json:"error"`
}

func handler(s Sessions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sessions", func(w http.ResponseWriter, _ *http.Request) {
		list := []Session{}
		for _, in := range s.ListAll() {
			list = append(list, Session{ID: in.ID, Owner: in.Owner, State: string(in.State), Created: in.Created, LastUsed: in.LastUsed})
		}
		reply(w, http.StatusOK, list)
	})
	mux.HandleFunc("POST /sessions/{id}/kill", func(w http.ResponseWriter, r *http.Request) {
		if err := s.KillAny(r.PathValue("id")); err != nil {
			reply(w, http.StatusNotFound, failure{err.Error()})
			return
		}
		reply(w, http.StatusOK, killed{1})
	})
	mux.HandleFunc("POST /users/{name}/kill", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusOK, killed{s.KillUser(r.PathValue("name"))})
	})
	if d, ok := s.(Drainer); ok {
		mux.HandleFunc("POST /drain", func(w http.ResponseWriter, _ *http.Request) {
			n, err := d.Drain()
			if err != nil {
				reply(w, http.StatusConflict, failure{err.Error()})
				return
			}
			reply(w, http.StatusOK, drained{n})
		})
	}
	return mux
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
