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
	for _, bin := range []string{binPath, plainBin} {
		if bin != "" {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}
