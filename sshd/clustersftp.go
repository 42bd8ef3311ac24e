package sshd

import (
	"sync"

	"github.com/pkg/sftp"
	"github.com/replhost/replhost/sftpd"
	gossh "golang.org/x/crypto/ssh"
)

// On a cluster an sftp login is served where it lands: its listing holds
// every session of the user on the shared root, and the requests for a
// session another live node holds are carried to that node over the
// internal connection (as attach and --session are), where its own store
// serves them. A login forwarded by another node serves only this node's
// sessions (no loops).

// Elsewhere is the node holding session id when Store failed with err
// because another live node holds it.
func (ss sessionStores) Elsewhere(user, id string, err error) (string, bool) {
	s := ss.s
	if s == nil || s.cfg.Cluster == nil || s.cfg.NodeKey == nil || forwarded(ss.sess) {
		return "", false
	}
	return s.cfg.Cluster.OwnerIn(err)
}

// Dial opens user's sftp view on the node at addr: an sftp subsystem on a
// channel of the kept internal connection.
func (ss sessionStores) Dial(user, addr string) (*sftpd.Remote, error) {
	s := ss.s
	ch, in, done, err := s.channel(ss.sess.Context(), addr, user)
	if err != nil {
		return nil, err
	}
	go gossh.DiscardRequests(in) // its exit-status
	if err := sendOK(ch, "subsystem", gossh.Marshal(struct{ Name string }{"sftp"})); err != nil {
		ch.Close()
		done()
		return nil, err
	}
	c, err := sftp.NewClientPipe(ch, ch)
	if err != nil {
		ch.Close()
		done()
		return nil, err
	}
	s.log.Debug("sftp carried", "user", user, "node", addr)
	var once sync.Once
	end := func() {
		once.Do(func() {
			c.Close() // closes ch
			done()
		})
	}
	go func() { // the other node ended it: give the channel back all the same
		c.Wait()
		end()
	}()
	return &sftpd.Remote{Client: c, Stderr: ch.Stderr(), Close: end}, nil
}
