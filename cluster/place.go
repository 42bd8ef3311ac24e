package cluster

import (
	"crypto/sha256"
	"encoding/binary"
)

// Place picks the member a new session of user goes to, by rendezvous
// (highest random weight) hashing: every member that is not draining gets
// the score sha256(user "\x00" node)[:8] as a big-endian integer, and the
// highest score wins (ties, which need a hash collision, go to the smaller
// node name). A user's sessions land on one node while the membership
// holds; users spread evenly over nodes; a node that joins or leaves moves
// only the users whose top score it takes or held. The zero Member is
// returned when no member may take new sessions.
func (n *Node) Place(user string, members []Member) Member { return place(user, members) }

func place(user string, members []Member) Member {
	var best Member
	var bestScore uint64
	found := false
	for _, m := range members {
		if m.Draining {
			continue
		}
		s := score(user, m.Node)
		if !found || s > bestScore || (s == bestScore && m.Node < best.Node) {
			best, bestScore, found = m, s, true
		}
	}
	return best
}

func score(user, node string) uint64 {
	h := sha256.New()
	h.Write([]byte(user))
	h.Write([]byte{0})
	h.Write([]byte(node))
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint64(h.Sum(sum[:0]))
}
