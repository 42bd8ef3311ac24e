package artifacts

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

// archive/zip's NewReader builds a *zip.File for every header of the
// central directory before it returns, however many the archive holds
// (225 MB of host memory for a million entries), and trusts no count: it
// reads headers until one does not start with the header signature, and
// compares only the low 16 bits of the end record's count. So before it
// runs, zipCount checks the end record's count (zip64's too) and then walks
// the headers the same way NewReader will, from each place NewReader may
// start, in constant memory, stopping past the cap.

const (
	zipEndSig       = 0x06054b50
	zipEnd64Sig     = 0x06064b50
	zipEnd64LocSig  = 0x07064b50
	zipHeaderSig    = 0x02014b50
	zipEndLen       = 22
	zipEnd64LocLen  = 20
	zipEnd64Len     = 56
	zipHeaderLen    = 46
	zipMaxEndSearch = 65 * 1024 // NewReader's search window for the end record
)

// errZipCount says the archive holds more entries than the cap.
var errZipCount = errors.New("too many entries")

// zipEnd is what the end records say about the central directory.
type zipEnd struct {
	records, size, offset uint64
	endOffset             int64 // of the end record NewReader uses (zip64's if any)
}

// zipCount fails with errZipCount if the zip r of size bytes holds (by its
// end record, or by the headers NewReader would read) more than max
// entries. Any other error is left for NewReader to report.
func zipCount(r io.ReaderAt, size int64, max int) error {
	end, ok := readZipEnd(r, size)
	if !ok {
		return nil // not a zip NewReader will open
	}
	if end.records > uint64(max) {
		return errZipCount
	}
	// NewReader starts at base+offset, base being where the end record
	// says the directory should start, or 0 if a header is found there.
	base := end.endOffset - int64(end.size) - int64(end.offset)
	for _, start := range []int64{int64(end.offset), base + int64(end.offset)} {
		if start < 0 || start >= size {
			continue
		}
		if countHeaders(io.NewSectionReader(r, start, size-start), max) > max {
			return errZipCount
		}
	}
	return nil
}

// countHeaders counts central directory headers read one after the other
// from r, as NewReader does, stopping at the first that is not one or once
// past max.
func countHeaders(r io.Reader, max int) int {
	br := bufio.NewReaderSize(r, 64<<10)
	var h [zipHeaderLen]byte
	n := 0
	for n <= max {
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return n
		}
		if binary.LittleEndian.Uint32(h[:]) != zipHeaderSig {
			return n
		}
		skip := int64(binary.LittleEndian.Uint16(h[28:])) + int64(binary.LittleEndian.Uint16(h[30:])) +
			int64(binary.LittleEndian.Uint16(h[32:]))
		if m, _ := br.Discard(int(skip)); int64(m) < skip {
			return n // NewReader fails on this one too
		}
		n++
	}
	return n
}

// readZipEnd finds the end of central directory record as NewReader does
// (the last signature in the final 1 KiB, else in the final 65 KiB, whose
// comment fits) and, where its fields say so, the zip64 end record.
func readZipEnd(r io.ReaderAt, size int64) (zipEnd, bool) {
	var buf []byte
	var at int64 = -1
	for _, n := range []int64{1024, zipMaxEndSearch} {
		n = min(n, size)
		buf = make([]byte, n)
		if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return zipEnd{}, false
		}
		if p := findZipEnd(buf); p >= 0 {
			buf, at = buf[p:], size-n+int64(p)
			break
		}
		if n == size {
			break
		}
	}
	if at < 0 {
		return zipEnd{}, false
	}
	le := binary.LittleEndian
	end := zipEnd{
		records:   uint64(le.Uint16(buf[10:])),
		size:      uint64(le.Uint32(buf[12:])),
		offset:    uint64(le.Uint32(buf[16:])),
		endOffset: at,
	}
	if end.records == 0xffff || end.size == 0xffff || end.offset == 0xffffffff {
		var loc [zipEnd64LocLen]byte
		if at < zipEnd64LocLen {
			return end, true
		}
		if _, err := r.ReadAt(loc[:], at-zipEnd64LocLen); err != nil {
			return zipEnd{}, false
		}
		if le.Uint32(loc[:]) != zipEnd64LocSig || le.Uint32(loc[4:]) != 0 || le.Uint32(loc[16:]) != 1 {
			return end, true
		}
		p := le.Uint64(loc[8:])
		var e64 [zipEnd64Len]byte
		if p > uint64(size) {
			return zipEnd{}, false
		}
		if _, err := r.ReadAt(e64[:], int64(p)); err != nil || le.Uint32(e64[:]) != zipEnd64Sig {
			return zipEnd{}, false
		}
		end = zipEnd{records: le.Uint64(e64[32:]), size: le.Uint64(e64[40:]), offset: le.Uint64(e64[48:]),
			endOffset: int64(p)}
	}
	if end.size >= 1<<63 || end.offset >= 1<<63 {
		return zipEnd{}, false
	}
	return end, true
}

// findZipEnd is the offset in b of the last end record whose comment fits.
func findZipEnd(b []byte) int {
	for i := len(b) - zipEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(b[i:]) == zipEndSig {
			n := int(binary.LittleEndian.Uint16(b[i+zipEndLen-2:]))
			if n+zipEndLen+i > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}
