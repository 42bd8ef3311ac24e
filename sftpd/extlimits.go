package sftpd

import (
	"encoding/binary"
)

// OpenSSH's limits@openssh.com extension (PROTOCOL, section 4.8), which
// pkg/sftp v1.13 neither offers nor answers. OpenSSH's sftp and scp (8.7
// and later) ask a server that offers it for its limits and, unless told
// otherwise (-B, -X buffer=), write and read in chunks of its
// max-write-length and max-read-length; without it they use 32 KiB. One
// 255 KiB write in place of eight of 32 KiB means an eighth of the
// requests, statuses, pwrites and quota checks, as OpenSSH's own
// sftp-server gets. The channel offers the extension in the server's
// version packet and answers the request itself: pkg/sftp never sees it.

const (
	fxpVersion       = 2
	fxpExtended      = 200
	fxpExtendedReply = 201

	limitsExt = "limits@openssh.com"

	// maxPacket is the longest packet pkg/sftp reads (its maxMsgLength:
	// the length field, without its own 4 bytes).
	maxPacket = 256 << 10
	// maxReadWrite is the data one read or write may carry, as OpenSSH's
	// sftp-server has it: room left in a packet for the rest of a write
	// request (handle, offset) and of a data response. The request server
	// must be made to send reads this long (sftp.WithRSMaxTxPacket).
	maxReadWrite = maxPacket - 1024
)

// withLimitsExt returns the server's version packet p with limitsExt
// added to the extensions it offers, or p as it is if p is not one whole
// version packet.
func withLimitsExt(p []byte) []byte {
	if len(p) < 9 || p[4] != fxpVersion || int(binary.BigEndian.Uint32(p)) != len(p)-4 {
		return p
	}
	out := make([]byte, 0, len(p)+8+len(limitsExt)+1)
	out = append(out, p...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(limitsExt)))
	out = append(out, limitsExt...)
	out = binary.BigEndian.AppendUint32(out, 1)
	out = append(out, '1')
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// maxExtendedPeek bounds the extended request the channel looks into: a
// limits request is 31 bytes.
const maxExtendedPeek = 1024

// limitsRequest reports whether pkt, one whole packet with its length, is
// a limits@openssh.com request, and its id.
func limitsRequest(pkt []byte) (id uint32, ok bool) {
	// length, type, id, name length, name; data may follow (none is sent).
	if len(pkt) < 13+len(limitsExt) || pkt[4] != fxpExtended {
		return 0, false
	}
	n := binary.BigEndian.Uint32(pkt[9:])
	if n != uint32(len(limitsExt)) || string(pkt[13:13+n]) != limitsExt {
		return 0, false
	}
	return binary.BigEndian.Uint32(pkt[5:]), true
}

// limitsReply is the reply to limits request id: the longest packet, read
// and write, and the open handles allowed.
func limitsReply(id uint32, handles int) []byte {
	b := make([]byte, 4, 4+1+4+4*8)
	b = append(b, fxpExtendedReply)
	b = binary.BigEndian.AppendUint32(b, id)
	b = binary.BigEndian.AppendUint64(b, maxPacket)
	b = binary.BigEndian.AppendUint64(b, maxReadWrite)
	b = binary.BigEndian.AppendUint64(b, maxReadWrite)
	b = binary.BigEndian.AppendUint64(b, uint64(handles))
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}
