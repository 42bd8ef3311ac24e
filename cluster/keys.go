package cluster

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// maxName bounds node names, user names and session ids (they are parts of
// etcd keys).
const maxName = 128

// keys is the layout under Config.Prefix. Every key but the prefix itself
// is held by the lease of the node that wrote it, so it vanishes when that
// node stops proving it is alive.
//
//	members/<node>          JSON memberValue: advertise address, draining
//	sessions/<id>           owner node name; its create revision is the fence
//	nodes/<node>/<id>       user name: counts a node's sessions
//	users/<user>/<id>       owner node name: counts a user's sessions
//	ended/<user>            the node that removed the user (an event: deleted at once)
type keys struct{ prefix string }

func (k keys) members() string              { return k.prefix + "members/" }
func (k keys) member(node string) string    { return k.members() + node }
func (k keys) session(id string) string     { return k.prefix + "sessions/" + id }
func (k keys) nodeSessions(n string) string { return k.prefix + "nodes/" + n + "/" }
func (k keys) userSessions(u string) string { return k.prefix + "users/" + u + "/" }
func (k keys) endedAll() string             { return k.prefix + "ended/" }
func (k keys) ended(u string) string        { return k.endedAll() + u }

// memberValue is what members/<node> holds.
type memberValue struct {
	Advertise string `json:"advertise"`
	Draining  bool   `json:"draining,omitempty"`
}

func encodeMember(m memberValue) string {
	b, _ := json.Marshal(m) // a struct of strings and bools cannot fail
	return string(b)
}

func decodeMember(node string, b []byte) (Member, error) {
	var v memberValue
	if err := json.Unmarshal(b, &v); err != nil {
		return Member{}, fmt.Errorf("member %q: %w", node, err)
	}
	return Member{Node: node, Advertise: v.Advertise, Draining: v.Draining}, nil
}

// checkName accepts what can be one segment of a key: non-empty, bounded,
// printable, no '/'.
func checkName(what, s string) error {
	if s == "" || len(s) > maxName || strings.ContainsRune(s, '/') ||
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) >= 0 {
		return fmt.Errorf("cluster: invalid %s %q (1-%d printable characters, no '/' or space)", what, s, maxName)
	}
	return nil
}
