package artifacts

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// An upload is hashed while it is written, from the file, by a goroutine
// of its own; whatever the writes do meanwhile, the sum Commit gives is
// the sum of the bytes it made visible.
func TestUploadHashedAhead(t *testing.T) {
	const chunk = 32 << 10
	tests := []struct {
		name   string
		size   int
		redo   int // a rewrite of 100 other bytes at this offset after the rest; -1: none
		viaAdd bool
	}{
		{"in-order-past-the-writeback-step", 20<<20 + 5, -1, false},
		{"through-add", 20<<20 + 5, -1, true},
		{"rewrite-in-the-hashed-part", 6 << 20, 1 << 20, false},
		{"rewrite-near-the-end", 3 << 20, 3<<20 - 200, false},
		{"smaller-than-a-hash-step", 100 << 10, 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := make([]byte, tt.size)
			rand.NewChaCha8([32]byte{5}).Read(data)
			s, _ := newStore(t, Limits{})
			want := append([]byte(nil), data...)
			var info Info
			var err error
			if tt.viaAdd {
				info, err = s.Add("files/big.bin", bytes.NewReader(data), sha(want))
			} else {
				u, cerr := s.Create("files/big.bin")
				if cerr != nil {
					t.Fatal(cerr)
				}
				for off := 0; off < len(data); off += chunk {
					if _, err := u.WriteAt(data[off:min(off+chunk, len(data))], int64(off)); err != nil {
						t.Fatalf("WriteAt(%d): %v", off, err)
					}
				}
				if tt.redo >= 0 {
					other := bytes.Repeat([]byte{'r'}, 100)
					copy(want[tt.redo:], other)
					if _, err := u.WriteAt(other, int64(tt.redo)); err != nil {
						t.Fatal(err)
					}
				}
				info, err = u.Commit(sha(want))
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(filepath.Join(s.Dir(), "files/big.bin"))
			if !bytes.Equal(got, want) || info.SHA256 != sha(want) {
				t.Errorf("got %d bytes with sum %s; want %d bytes with sum %s", len(got), info.SHA256, len(want), sha(want))
			}
		})
	}
}

// Commit and Abort end the upload's hashing goroutine before they return.
func TestUploadEndsItsHashing(t *testing.T) {
	data := make([]byte, 5<<20)
	rand.NewChaCha8([32]byte{6}).Read(data)
	ends := []struct {
		name string
		end  func(*Upload) error
	}{
		{"commit", func(u *Upload) error { _, err := u.Commit(""); return err }},
		{"commit-wrong-sum", func(u *Upload) error {
			if _, err := u.Commit(sha([]byte("other"))); !errors.Is(err, ErrChecksum) {
				return err
			}
			return nil
		}},
		{"abort", (*Upload).Abort},
	}
	for _, e := range ends {
		t.Run(e.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			s, _ := newStore(t, Limits{})
			u, err := s.Create("files/x.bin")
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(data); off += 1 << 20 {
				u.WriteAt(data[off:off+1<<20], int64(off))
			}
			if err := e.end(u); err != nil {
				t.Fatal(err)
			}
			goleak.VerifyNone(t, before)
			noTemp(t, s)
		})
	}
}
