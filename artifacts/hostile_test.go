package artifacts

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Hostile archives: each is refused with one clear line and leaves the
// session directory (and everything beside it) exactly as it was.
func TestHostileArchives(t *testing.T) {
	etcName := "replhost-evil-" + strings.Repeat("x", 4) // never made in /etc
	tests := []struct {
		name string
		file string // the archive's name in archives/
		data func(testing.TB) []byte
		lim  Limits
		want error
		says string
	}{
		{"zip-slip", "slip.zip", func(tb testing.TB) []byte {
			return zipball(tb, file("ok.txt", "ok"), file("../../evil.txt", "evil"))
		}, Limits{}, ErrBadArchive, `entry "../../evil.txt": name escapes the archive`},
		{"zip-absolute", "abs.zip", func(tb testing.TB) []byte {
			return zipball(tb, file("/etc/"+etcName, "evil"))
		}, Limits{}, ErrBadArchive, "absolute name"},
		{"zip-symlink-out", "ln.zip", func(tb testing.TB) []byte {
			return zipball(tb, symlink("pw", "/etc/passwd"))
		}, Limits{}, ErrBadArchive, "is absolute"},
		{"zip-device", "dev.zip", func(tb testing.TB) []byte {
			return zipball(tb, entry{name: "tty", typ: tar.TypeChar})
		}, Limits{}, ErrBadArchive, "device"},
		{"tar-slip", "slip.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, file("a/../../x", "evil"))
		}, Limits{}, ErrBadArchive, "escapes the archive"},
		{"tar-symlink-to-etc-then-through", "etc.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, symlink("etc", "/etc"), file("etc/"+etcName, "evil"))
		}, Limits{}, ErrBadArchive, `symlink to "/etc" is absolute`},
		{"tar-symlink-up", "up.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, dir("d/"), symlink("d/out", "../../outside"))
		}, Limits{}, ErrBadArchive, "points outside the archive"},
		{"tar-symlink-dot-trick", "dot.tar", func(tb testing.TB) []byte {
			// d/X -> "." makes X/.. climb one more than it reads.
			return tarball(tb, false, dir("d/"), symlink("d/X", "."), symlink("d/L", "X/../.."))
		}, Limits{}, ErrBadArchive, "holds .. after a name"},
		{"tar-through-inner-symlink", "in.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, dir("d/"), symlink("l", "d"), file("l/f", "x"))
		}, Limits{}, ErrBadArchive, `goes through "l", which is not a folder`},
		{"tar-hardlink-out", "hl.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, hardlink("pw", "../../../../etc/passwd"))
		}, Limits{}, ErrBadArchive, "points outside the archive"},
		{"tar-hardlink-absolute", "hla.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, hardlink("pw", "/etc/passwd"))
		}, Limits{}, ErrBadArchive, "points outside the archive"},
		{"tar-hardlink-to-symlink", "hls.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, symlink("s", "x"), hardlink("h", "s"))
		}, Limits{}, ErrBadArchive, "not a file earlier in the archive"},
		{"tar-fifo", "fifo.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, entry{name: "p", typ: tar.TypeFifo})
		}, Limits{}, ErrBadArchive, "device or a fifo"},
		{"tar-block-device", "blk.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, entry{name: "sda", typ: tar.TypeBlock})
		}, Limits{}, ErrBadArchive, "device or a fifo"},
		{"tar-duplicate-replaces-folder", "dup.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, dir("d/"), symlink("d", "/etc"))
		}, Limits{}, ErrBadArchive, "appears twice"},
		{"tar-backslash", "bs.tar", func(tb testing.TB) []byte {
			return tarball(tb, false, file(`..\..\x`, "evil"))
		}, Limits{}, ErrBadArchive, "backslash"},
		{"gzip-bomb-1GiB", "bomb.tar.gz", gzipBomb, Limits{}, ErrTooLarge, "unpacks to more than 1 GiB"},
		{"zip-bomb-1GiB", "bomb.zip", zipBomb, Limits{}, ErrTooLarge, "unpacks to more than 1 GiB"},
		{"bytes-cap-across-files", "many.tgz", func(tb testing.TB) []byte {
			big := strings.Repeat("0", 600<<10)
			return tarball(tb, true, file("a", big), file("b", big))
		}, Limits{MaxUnpackedBytes: 1 << 20}, ErrTooLarge, "more than 1 MiB"},
		{"entries-cap", "n.tar", func(tb testing.TB) []byte {
			var es []entry
			for i := range 101 {
				es = append(es, file(strings.Repeat("f", i+1), ""))
			}
			return tarball(tb, false, es...)
		}, Limits{MaxEntries: 100}, ErrTooLarge, "more than 100 entries"},
		{"entries-cap-implicit-folders", "deep.zip", func(tb testing.TB) []byte {
			return zipball(tb, file(strings.Repeat("d/", 200)+"f", ""))
		}, Limits{MaxEntries: 100}, ErrTooLarge, "more than 100 entries"},
		{"not-gzip", "x.tgz", func(tb testing.TB) []byte { return []byte("plain text") }, Limits{}, ErrBadArchive, "not a gzip file"},
		{"truncated-tar", "t.tar", func(tb testing.TB) []byte {
			b := tarball(tb, false, file("a", strings.Repeat("x", 5000)))
			return b[:1500]
		}, Limits{}, ErrBadArchive, `entry "a"`},
		{"not-zip", "x.zip", func(tb testing.TB) []byte { return []byte("PK no") }, Limits{}, ErrBadArchive, "not a valid zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, parent := newStore(t, tt.lim)
			s.Add("files/keep.txt", strings.NewReader("keep"), "")
			before := tree(t, parent)
			_, err := s.Add("archives/"+tt.file, bytes.NewReader(tt.data(t)), "")
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("got %v; want %v saying %q", err, tt.want, tt.says)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("got a multi-line error %q; want one line", err)
			}
			sameTree(t, tree(t, parent), before)
			if _, err := os.Lstat("/etc/" + etcName); !os.IsNotExist(err) {
				t.Errorf("got %v for /etc/%s; want it absent", err, etcName)
			}
		})
	}
}

// gzipBomb is a ~1 MB .tar.gz whose single file expands to 1 GiB + 1 MiB of
// zeros: gzip members concatenated, each 1 MiB of zeros compressed once.
func gzipBomb(tb testing.TB) []byte {
	tb.Helper()
	const mib = 1 << 20
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	tw.WriteHeader(&tar.Header{Name: "zeros", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1<<30 + mib})
	tw.Flush()
	var out bytes.Buffer
	member := func(b []byte) {
		zw := gzip.NewWriter(&out)
		zw.Write(b)
		zw.Close()
	}
	member(hdr.Bytes())
	mark := out.Len()
	member(make([]byte, mib))
	zeros := bytes.Clone(out.Bytes()[mark:])
	for range 1024 {
		out.Write(zeros)
	}
	return out.Bytes()
}

// zipBomb is a zip whose one entry inflates to 1 GiB + 1 MiB of zeros: one
// deflated MiB of zeros, cut at a sync flush, repeated, then a final block.
func zipBomb(tb testing.TB) []byte {
	tb.Helper()
	const mib = 1 << 20
	var blk bytes.Buffer
	fw, _ := flate.NewWriter(&blk, flate.BestCompression)
	fw.Write(make([]byte, mib))
	fw.Flush()
	var raw bytes.Buffer
	crc := uint32(0)
	zero := make([]byte, mib)
	for range 1025 {
		raw.Write(blk.Bytes())
		crc = crc32.Update(crc, crc32.IEEETable, zero)
	}
	end, _ := flate.NewWriter(&raw, flate.BestCompression)
	end.Close()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "zeros", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(raw.Len()), UncompressedSize64: 1<<30 + mib})
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(raw.Bytes())
	zw.Close()
	return out.Bytes()
}

// A bomb whose header claims a small size: the reader stops it (zip checks
// sizes), and our byte count would too. Either way nothing is written.
func TestZipBombLyingHeader(t *testing.T) {
	b := zipBomb(t)
	i := bytes.Index(b, []byte("PK\x01\x02")) // central directory: set sizes to 1 KiB
	lie := []byte{0, 4, 0, 0}
	copy(b[i+24:], lie)
	j := bytes.Index(b, []byte("PK\x03\x04"))
	copy(b[j+22:], lie)
	s, parent := newStore(t, Limits{MaxUnpackedBytes: 8 << 20})
	before := tree(t, parent)
	_, err := s.Add("archives/lie.zip", bytes.NewReader(b), "")
	if !errors.Is(err, ErrBadArchive) && !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v; want ErrBadArchive or ErrTooLarge", err)
	}
	t.Log(err)
	sameTree(t, tree(t, parent), before)
}

// The fixtures kept for end-to-end tests stay what they claim to be.
func TestHostileFixtures(t *testing.T) {
	for file, want := range map[string]error{
		"set.tar.gz": nil, "zip-slip.zip": ErrBadArchive, "symlink-etc.tar": ErrBadArchive,
		"hardlink-out.tar": ErrBadArchive, "fifo.tar": ErrBadArchive, "bomb.tar.gz": ErrTooLarge,
		"million-count.zip": ErrTooLarge,
	} {
		t.Run(strings.ReplaceAll(file, ".", "-"), func(t *testing.T) {
			b, err := os.ReadFile("testdata/hostile/" + file)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := newStore(t, Limits{})
			if _, err := s.Add("archives/"+file, bytes.NewReader(b), ""); !errors.Is(err, want) {
				t.Errorf("got %v; want %v", err, want)
			}
		})
	}
}

// millionZip is a zip of n entries, all empty files named "", whose end
// record claims count entries (zip64 records when zip64): a central
// directory of n headers of 46 bytes, all for one local header.
func millionZip(n int, count uint64, zip64 bool) []byte {
	le := binary.LittleEndian
	var b bytes.Buffer
	local := make([]byte, 30)
	le.PutUint32(local, 0x04034b50)
	le.PutUint16(local[4:], 20)
	b.Write(local)
	hdr := make([]byte, 46)
	le.PutUint32(hdr, 0x02014b50)
	le.PutUint16(hdr[4:], 20)
	le.PutUint16(hdr[6:], 20)
	dirAt := b.Len()
	b.Write(bytes.Repeat(hdr, n))
	dirSize := b.Len() - dirAt
	if zip64 {
		at := b.Len()
		e := make([]byte, 56)
		le.PutUint32(e, 0x06064b50)
		le.PutUint64(e[4:], 44)
		le.PutUint64(e[24:], count)
		le.PutUint64(e[32:], count)
		le.PutUint64(e[40:], uint64(dirSize))
		le.PutUint64(e[48:], uint64(dirAt))
		b.Write(e)
		loc := make([]byte, 20)
		le.PutUint32(loc, 0x07064b50)
		le.PutUint64(loc[8:], uint64(at))
		le.PutUint32(loc[16:], 1)
		b.Write(loc)
	}
	end := make([]byte, 22)
	le.PutUint32(end, 0x06054b50)
	c16 := uint16(count)
	if zip64 {
		c16 = 0xffff
	}
	le.PutUint16(end[8:], c16)
	le.PutUint16(end[10:], c16)
	le.PutUint32(end[12:], uint32(dirSize))
	le.PutUint32(end[16:], uint32(dirAt))
	b.Write(end)
	return b.Bytes()
}

// A zip of a million entries is refused by its count before archive/zip
// reads its central directory (which would cost ~225 MB), whether its end
// record says so (zip64) or lies with a count that matches in 16 bits,
// which archive/zip accepts. The count check's own reads are bounded, so
// the whole upload allocates a few MiB, not hundreds.
func TestZipMillionEntriesRefusedByCount(t *testing.T) {
	const n = 1_000_000
	tests := []struct {
		name string
		data []byte
	}{
		{"zip64-count", millionZip(n, n, true)},
		{"lying-16-bit-count", millionZip(16*65536+3, 3, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "lying-16-bit-count" {
				if _, err := zip.NewReader(bytes.NewReader(tt.data), int64(len(tt.data))); err != nil {
					t.Fatalf("archive/zip itself refuses the fixture (%v); it must accept it", err)
				}
			}
			s, parent := newStore(t, Limits{})
			before := tree(t, parent)
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := s.Add("archives/million.zip", bytes.NewReader(tt.data), "")
			runtime.ReadMemStats(&m1)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 10000 entries in its central directory") {
				t.Fatalf("got %v; want the central directory count refused", err)
			}
			if got := m1.TotalAlloc - m0.TotalAlloc; got > 16<<20 {
				t.Errorf("the refused upload allocated %d MiB; want at most 16", got>>20)
			}
			sameTree(t, tree(t, parent), before)
		})
	}
}

// testdata/hostile/million-count.zip is millionZip(1, 1_000_000, true): one
// entry, an end record claiming a million. It is refused by the count
// before archive/zip reads anything (and archive/zip would refuse it only
// after reading its whole directory). UPDATE_FIXTURES=1 go test -run
// MillionCountFixture writes it again.
func TestMillionCountFixture(t *testing.T) {
	want := millionZip(1, 1_000_000, true)
	const p = "testdata/hostile/million-count.zip"
	if os.Getenv("UPDATE_FIXTURES") != "" {
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("got %d bytes, %v; want the fixture as millionZip makes it (UPDATE_FIXTURES=1 rewrites it)", len(got), err)
	}
}
