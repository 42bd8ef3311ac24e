package sshd

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Bounds on what a client can make the host hold for one channel before
// and around its shell, as the request filter enforces them.
const (
	maxEnvVars    = 16
	maxEnvBytes   = 4 << 10 // names and values together
	maxTermName   = 64
	maxTermModes  = 1 << 10
	maxTermSide   = 4096 // columns or rows
	channelEnvKey = "REPLHOST_CHANNEL"
)

// envAllowed is sshd's AcceptEnv of a stock Debian sshd_config: the locale
// and the terminal type; every other variable is ignored and not stored.
func envAllowed(name string) bool {
	return name == "LANG" || name == "TERM" || strings.HasPrefix(name, "LC_")
}

// chanState is what the filter keeps of one session channel.
type chanState struct {
	resize   chan int        // newest window width only
	window   chan ssh.Window // newest window size, for a login forwarded to another node
	modes    string          // the pty-req's terminal modes, for a login forwarded to another node; set before the shell starts
	original string          // the command the client asked for, when command= forced another
	// nodeEnv is the session environment the node that forwarded this
	// login made for its client (forwardenv.go); set before the shell
	// starts, on a login with the node key only.
	nodeEnv []string
}

var nextChannel atomic.Uint64

// filterSessions puts the request filter between a session channel and
// gliderlabs, whose own handling of channel requests stores every env
// request, blocks its loop on a window-change that comes before the shell
// (leaking the channel), acknowledges agent forwarding and never answers a
// signal.
func (s *Server) filterSessions(next ssh.ChannelHandler) ssh.ChannelHandler {
	return func(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
		next(srv, conn, &filteredChannel{NewChannel: newChan, s: s, ctx: ctx}, ctx)
	}
}

type filteredChannel struct {
	gossh.NewChannel
	s   *Server
	ctx ssh.Context
}

func (f *filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go f.s.filterRequests(f.ctx, reqs, out)
	return ch, out, nil
}

// filterRequests answers or drops what gliderlabs must not see, and
// forwards the rest. Every request that wants a reply gets one.
func (s *Server) filterRequests(ctx ssh.Context, in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	id := strconv.FormatUint(nextChannel.Add(1), 10)
	st := &chanState{resize: make(chan int, 1), window: make(chan ssh.Window, 1)}
	s.channels.Store(id, st)
	defer s.channels.Delete(id)
	grant, authed := grantOf(ctx)
	var (
		env      []string
		envBytes int
		started  bool
	)
	for req := range in {
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if !started && gossh.Unmarshal(req.Payload, &kv) == nil && kv.Name == nodeEnvKey {
				req.Reply(s.takeNodeEnv(st, grant, kv.Value), nil)
				continue
			}
			ok := !started && gossh.Unmarshal(req.Payload, &kv) == nil && envAllowed(kv.Name) &&
				len(env) < maxEnvVars && envBytes+len(kv.Name)+len(kv.Value) <= maxEnvBytes
			if ok {
				env = append(env, kv.Name+"="+kv.Value)
				envBytes += len(kv.Name) + len(kv.Value)
			}
			req.Reply(ok, nil)
		case "pty-req":
			if started || grant.NoPTY || !validPty(req.Payload) {
				req.Reply(false, nil)
				continue
			}
			st.modes = ptyModes(req.Payload) // gliderlabs drops them
			out <- req
		case "window-change":
			w, ok := parseWindow(req.Payload)
			if ok {
				select {
				case <-st.resize: // keep only the newest
				default:
				}
				st.resize <- w.Width
				select {
				case <-st.window:
				default:
				}
				st.window <- w
			}
			req.Reply(ok, nil)
		case "shell", "exec", "subsystem":
			if started || !authed {
				req.Reply(false, nil)
				continue
			}
			started = true
			if grant.Command != "" {
				st.original = forceCommand(req, grant.Command)
			}
			for _, kv := range append(env, channelEnvKey+"="+id) {
				name, value, _ := strings.Cut(kv, "=")
				out <- &gossh.Request{Type: "env", Payload: gossh.Marshal(struct{ Name, Value string }{name, value})}
			}
			out <- req
		default:
			// signal, break, auth-agent-req@openssh.com, x11-req and the
			// rest: refused, and answered when the client asks.
			if req.Type == "auth-agent-req@openssh.com" || req.Type == "x11-req" {
				s.log.Info("forwarding refused", "user", ctx.User(), "remote", ctx.RemoteAddr().String(), "request", req.Type)
			}
			req.Reply(false, nil)
		}
	}
}

// forceCommand turns a shell, exec or subsystem request into an exec of
// command (authorized_keys command=, a certificate's force-command), and
// returns what the client had asked for (sshd's SSH_ORIGINAL_COMMAND).
func forceCommand(req *gossh.Request, command string) string {
	var original struct{ Value string }
	if req.Type != "shell" {
		gossh.Unmarshal(req.Payload, &original)
	}
	if req.Type == "subsystem" && command == "internal-sftp" {
		req.Payload = gossh.Marshal(struct{ Value string }{"sftp"})
		return original.Value
	}
	req.Type = "exec"
	req.Payload = gossh.Marshal(struct{ Value string }{command})
	return original.Value
}

// validPty refuses a pty-req whose sizes or strings pass the bounds.
func validPty(payload []byte) bool {
	var p struct {
		Term                 string
		Cols, Rows, Wpx, Hpx uint32
		Modes                string
	}
	if gossh.Unmarshal(payload, &p) != nil {
		return false
	}
	return len(p.Term) <= maxTermName && len(p.Modes) <= maxTermModes && p.Cols <= maxTermSide && p.Rows <= maxTermSide
}

func parseWindow(payload []byte) (ssh.Window, bool) {
	var w struct{ Cols, Rows, Wpx, Hpx uint32 }
	if gossh.Unmarshal(payload, &w) != nil || w.Cols < 1 || w.Rows < 1 || w.Cols > maxTermSide || w.Rows > maxTermSide {
		return ssh.Window{}, false
	}
	return ssh.Window{Width: int(w.Cols), Height: int(w.Rows)}, true
}

// channelOf is the filter's state of sess's channel.
func (s *Server) channelOf(sess ssh.Session) *chanState {
	for _, kv := range sess.Environ() {
		if id, ok := strings.CutPrefix(kv, channelEnvKey+"="); ok {
			if v, ok := s.channels.Load(id); ok {
				return v.(*chanState)
			}
		}
	}
	return &chanState{}
}

// channelRegistry maps the id the filter gives a channel to its state.
type channelRegistry = sync.Map
