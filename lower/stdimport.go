package lower

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"sync"
)

//go:generate go run ./internal/genexport stdexport.zip

// stdExport holds the export data of the public standard library of the Go
// toolchain in go.mod (see internal/genexport): cells are type-checked
// against the real Go 1.26 API without needing GOROOT at run time.
//
//go:embed stdexport.zip
var stdExport []byte

// stdImporter is shared by every session of the process: export data is
// decoded once per package and the resulting *types.Package values are
// immutable after import, so sessions may share them.
var stdImporter = struct {
	once sync.Once
	mu   sync.Mutex // guards imp (go/importer is not safe for concurrent use)
	imp  types.Importer
	zr   *zip.Reader
	// names are the packages in zr: isStd is asked for every import of
	// every check, and opening the entry costs a flate reader.
	names map[string]bool
	err   error
}{}

func stdZip() (*zip.Reader, error) {
	stdImporter.once.Do(func() {
		stdImporter.zr, stdImporter.err = zip.NewReader(bytes.NewReader(stdExport), int64(len(stdExport)))
		if stdImporter.err != nil {
			return
		}
		stdImporter.names = make(map[string]bool, len(stdImporter.zr.File))
		for _, f := range stdImporter.zr.File {
			stdImporter.names[f.Name] = true
		}
		stdImporter.imp = importer.ForCompiler(token.NewFileSet(), "gc", openStd)
	})
	return stdImporter.zr, stdImporter.err
}

func openStd(path string) (io.ReadCloser, error) {
	f, err := stdImporter.zr.Open(path)
	if err != nil {
		return nil, fmt.Errorf("package %q is not in the standard library", path)
	}
	return f, nil
}

// isStd reports whether path names a public standard-library package.
func isStd(path string) bool {
	if _, err := stdZip(); err != nil {
		return false
	}
	return stdImporter.names[path]
}

// importStd returns the type information of a standard-library package.
func importStd(path string) (*types.Package, error) {
	if _, err := stdZip(); err != nil {
		return nil, fmt.Errorf("std export data: %w", err)
	}
	stdImporter.mu.Lock()
	defer stdImporter.mu.Unlock()
	return stdImporter.imp.Import(path)
}

// warmPackages are the standard packages most cells import.
var warmPackages = []string{"fmt", "strings", "strconv", "errors", "os", "sort", "time", "math", "bytes", "io", "slices", "maps", "cmp", "iter"}

// Warm decodes, once per process, the type information of the standard
// packages most cells import and loads the generic std implementations, so
// that the first cell of the first session does not wait for them (tens of
// milliseconds). A process that will host sessions (an idle worker) calls it
// ahead of time; it is safe to call concurrently and more than once.
func Warm() error {
	for _, p := range warmPackages {
		if _, err := importStd(p); err != nil {
			return err
		}
	}
	_, err := loadStdSites()
	return err
}
