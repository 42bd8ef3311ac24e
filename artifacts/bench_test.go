package artifacts

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// BenchmarkAdd64MiB measures Add of a 64 MiB file: temp file, SHA-256,
// fsync, rename (classes/src may be overwritten, so each run replaces it).
func BenchmarkAdd64MiB(b *testing.B) {
	data := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{7}).Read(data)
	s, _ := newStore(b, Limits{})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Add("classes/src/big/big.bin", bytes.NewReader(data), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteAt64MiB is the sftp path: 32 KiB writes from 8 goroutines,
// a little out of order, then Commit.
func BenchmarkWriteAt64MiB(b *testing.B) {
	const chunk = 32 << 10
	data := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{7}).Read(data)
	s, _ := newStore(b, Limits{})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		u, err := s.Create("classes/src/big/big.bin")
		if err != nil {
			b.Fatal(err)
		}
		offs := make(chan int, 8)
		done := make(chan struct{})
		for range 8 {
			go func() {
				defer func() { done <- struct{}{} }()
				for off := range offs {
					u.WriteAt(data[off:off+chunk], int64(off))
				}
			}()
		}
		for off := 0; off < len(data); off += chunk {
			offs <- off
		}
		close(offs)
		for range 8 {
			<-done
		}
		if _, err := u.Commit(""); err != nil {
			b.Fatal(err)
		}
	}
}
