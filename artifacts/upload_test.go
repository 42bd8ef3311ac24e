package artifacts

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cutReader yields n bytes, then fails as a connection dropped mid-stream.
type cutReader struct{ n int }

var errCut = errors.New("connection reset by peer")

func (c *cutReader) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, errCut
	}
	k := min(len(p), c.n)
	for i := range p[:k] {
		p[i] = 'z'
	}
	c.n -= k
	return k, nil
}

func TestAddRefusedLeavesNothing(t *testing.T) {
	good := []byte("package greet\n")
	tests := []struct {
		name    string
		artName string
		r       io.Reader
		sha     string
		lim     Limits
		want    error
		says    string
	}{
		{"dot-dot", "../x", bytes.NewReader(good), "", Limits{}, ErrBadName, "must start with"},
		{"absolute", "/etc/x", bytes.NewReader(good), "", Limits{}, ErrBadName, "must be relative"},
		{"escape-files", "files/../../x", bytes.NewReader(good), "", Limits{}, ErrBadName, ".. path element"},
		{"source-without-package", "classes/src/x.go", bytes.NewReader(good), "", Limits{}, ErrBadName, "classes/src/PACKAGE/FILE"},
		{"wrong-sha256", "files/x", bytes.NewReader(good), sha([]byte("other")), Limits{}, ErrChecksum, "sha256 mismatch: got " + sha(good)},
		{"malformed-sha256", "files/x", bytes.NewReader(good), "abc", Limits{}, ErrChecksum, "64 hex digits"},
		{"cut-off", "files/x", &cutReader{n: 3 << 20}, "", Limits{}, errCut, "upload cut off"},
		{"cut-off-archive", "archives/x.tar", &cutReader{n: 5000}, "", Limits{}, errCut, "upload cut off"},
		{"too-large", "files/x", &cutReader{n: 5000}, "", Limits{MaxFileBytes: 4096}, ErrTooLarge, "limit of 4 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, parent := newStore(t, tt.lim)
			before := tree(t, parent)
			_, err := s.Add(tt.artName, tt.r, tt.sha)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("got %v; want %v saying %q", err, tt.want, tt.says)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("got a multi-line error %q; want one line", err)
			}
			sameTree(t, tree(t, parent), before)
		})
	}
}

func TestWriteAtOutOfOrder(t *testing.T) {
	tests := []struct {
		name    string
		chunk   int
		shuffle bool
		rewrite bool // write a chunk again below the hashed prefix
	}{
		{"in-order", 32 << 10, false, false},
		{"shuffled", 32 << 10, true, false},
		{"shuffled-odd-chunks", 7777, true, false},
		{"rewritten", 32 << 10, true, true},
	}
	data := make([]byte, 3<<20+123)
	rand.NewChaCha8([32]byte{1}).Read(data)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t, Limits{})
			u, err := s.Create("files/big.bin")
			if err != nil {
				t.Fatal(err)
			}
			var offs []int
			for off := 0; off < len(data); off += tt.chunk {
				offs = append(offs, off)
			}
			if tt.shuffle {
				rand.New(rand.NewPCG(3, 4)).Shuffle(len(offs), func(i, j int) { offs[i], offs[j] = offs[j], offs[i] })
			}
			if tt.rewrite {
				offs = append(offs, 0)
			}
			var wg sync.WaitGroup
			work := make(chan int)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for off := range work {
						end := min(off+tt.chunk, len(data))
						if _, err := u.WriteAt(data[off:end], int64(off)); err != nil {
							t.Errorf("WriteAt(%d): %v", off, err)
							return
						}
					}
				}()
			}
			for _, off := range offs {
				work <- off
			}
			close(work)
			wg.Wait()
			info, err := u.Commit(sha(data))
			if err != nil {
				t.Fatal(err)
			}
			if info.Size != int64(len(data)) {
				t.Errorf("got size %d; want %d", info.Size, len(data))
			}
			got, _ := os.ReadFile(filepath.Join(s.Dir(), "files/big.bin"))
			if !bytes.Equal(got, data) {
				t.Errorf("got %d different bytes; want the same", len(got))
			}
			noTemp(t, s)
		})
	}
}

func TestUploadAbort(t *testing.T) {
	s, parent := newStore(t, Limits{})
	before := tree(t, parent)
	u, err := s.Create("files/x")
	if err != nil {
		t.Fatal(err)
	}
	u.WriteAt([]byte("partial"), 0)
	if err := u.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := u.Abort(); err != nil {
		t.Errorf("got %v from a second Abort; want nil", err)
	}
	if _, err := u.Commit(""); !errors.Is(err, ErrClosed) {
		t.Errorf("got %v; want ErrClosed", err)
	}
	if _, err := u.WriteAt([]byte("more"), 7); err == nil {
		t.Errorf("got nil from WriteAt after Abort; want an error")
	}
	sameTree(t, tree(t, parent), before)
}

func TestWriteAtPastLimitFailsCommit(t *testing.T) {
	s, parent := newStore(t, Limits{MaxFileBytes: 100})
	before := tree(t, parent)
	u, _ := s.Create("files/x")
	u.WriteAt([]byte("ok"), 0)
	if _, err := u.WriteAt([]byte("x"), 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v; want ErrTooLarge", err)
	}
	if _, err := u.Commit(""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v; want ErrTooLarge", err)
	}
	sameTree(t, tree(t, parent), before)
}

func TestWriteAtOverlappingKeepsSumTrue(t *testing.T) {
	s, _ := newStore(t, Limits{})
	u, _ := s.Create("files/o")
	u.WriteAt(bytes.Repeat([]byte("b"), 100), 50) // pending beyond the hashed prefix
	u.WriteAt(bytes.Repeat([]byte("a"), 100), 0)  // in order, but overlapping it
	info, err := u.Commit("")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(s.Dir(), "files/o"))
	if want := strings.Repeat("a", 100) + strings.Repeat("b", 50); string(got) != want || info.SHA256 != sha(got) {
		t.Errorf("got %q with sum %s; want %q with sum %s", got, info.SHA256, want, sha(got))
	}
}
