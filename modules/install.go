package modules

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// stagingDir is where a :get assembles its modules, inside the session's
// classes/ but outside classes/src, so nothing half-copied is importable.
const stagingDir = ".get-staging"

// install copies each module's tree from the cache into classesDir/src/<path>
// (a session's GOPATH), replacing what was there, without tests and
// testdata. Everything is opened through an os.Root of classesDir, so a
// link the session planted cannot send a write outside it.
func install(classesDir string, s pkgSet) error {
	root, err := os.OpenRoot(classesDir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.RemoveAll(stagingDir); err != nil {
		return err
	}
	defer root.RemoveAll(stagingDir)
	for i, m := range s.mods {
		stage := path.Join(stagingDir, fmt.Sprint(i))
		if err := copyTree(root, s.dirs[m.Path], stage); err != nil {
			return fmt.Errorf("install %s: %w", m, err)
		}
	}
	if err := root.MkdirAll("src", 0o755); err != nil {
		return err
	}
	for i, m := range s.mods {
		dst := path.Join("src", m.Path)
		if err := root.RemoveAll(dst); err != nil {
			return err
		}
		if err := root.MkdirAll(path.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := root.Rename(path.Join(stagingDir, fmt.Sprint(i)), dst); err != nil {
			return fmt.Errorf("install %s: %w", m, err)
		}
	}
	return nil
}

// copyTree copies the regular files of src (a cache tree, trusted) to dst in
// root: read-only for the session, which may read its packages, not change them.
func copyTree(root *os.Root, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := path.Join(dst, filepath.ToSlash(rel))
		name := d.Name()
		switch {
		case d.IsDir() && p != src && (name == "testdata" || strings.HasPrefix(name, ".")):
			return filepath.SkipDir
		case d.IsDir():
			return root.MkdirAll(target, 0o755)
		case strings.HasSuffix(name, "_test.go") || !d.Type().IsRegular():
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := root.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		return errors.Join(err, out.Close())
	})
}
