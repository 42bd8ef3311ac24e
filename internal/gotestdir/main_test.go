package gotestdir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the binaries the tests built (replhost, plain yaegi),
// which every corpus's subtest shares.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, b := range []*binary{replhostBin, plainBin} {
		if b.path != "" {
			os.RemoveAll(filepath.Dir(b.path))
		}
	}
	os.Exit(code)
}
