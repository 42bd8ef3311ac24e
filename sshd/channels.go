package sshd

import (
	"sync/atomic"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

const ctxChannels ctxKey = "replhost-channels"

// limitChannels caps the session channels open at once on one connection:
// gliderlabs has no such limit, and each channel may hold an interpreter.
func (s *Server) limitChannels(next ssh.ChannelHandler) ssh.ChannelHandler {
	return func(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
		n, _ := ctx.Value(ctxChannels).(*atomic.Int64)
		if n == nil {
			ctx.Lock()
			if n, _ = ctx.Value(ctxChannels).(*atomic.Int64); n == nil {
				n = new(atomic.Int64)
				ctx.SetValue(ctxChannels, n)
			}
			ctx.Unlock()
		}
		if n.Add(1) > int64(s.cfg.MaxChannels) {
			n.Add(-1)
			newChan.Reject(gossh.ResourceShortage, "too many sessions on this connection")
			return
		}
		defer n.Add(-1)
		next(srv, conn, newChan, ctx)
	}
}
