package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/replhost/replhost/lower"
)

// The meta-commands that look at the session's code without running it:
// :type EXPR, :print and :write FILE (and :doc, in doc.go's neighbour
// inspectdoc.go).

// typeOf prints the type of expr as the Go front end (go/types) sees it
// after the session's journal: nothing runs, in either isolation mode.
func (c *commander) typeOf(args []string, line string) error {
	expr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":type"))
	if len(args) == 0 || expr == "" {
		return errors.New("usage: :type EXPR")
	}
	ls, err := c.frontEnd()
	if err != nil {
		return err
	}
	t, err := ls.TypeOf(expr)
	if err != nil {
		return fmt.Errorf("type: %w", err)
	}
	fmt.Fprintln(c.out, t)
	return nil
}

// frontEnd is the Go front end after the session's journal, with the
// session's packages (uploaded, or fetched with :get) under classes/src.
func (c *commander) frontEnd() (*lower.Session, error) {
	cells, err := c.s.journal.Cells()
	if err != nil {
		return nil, err
	}
	ls := lower.NewSession(lower.Options{Classes: filepath.Join(c.s.dir, "classes")})
	for _, cell := range cells {
		ls.Commit(cell)
	}
	return ls, nil
}

// write saves the session's program as name in its files/, through an
// os.Root of files/: a name that leaves it (.., an absolute path, a
// symlink out) is refused.
func (c *commander) write(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: :write FILE (a file of the session's files/)")
	}
	name := args[0]
	if !filepath.IsLocal(name) {
		return fmt.Errorf("write %s: the name must stay inside the session's files/", name)
	}
	prog, err := c.program()
	if err != nil {
		return err
	}
	root, err := openSessionFiles(c.s.dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer root.Close()
	if err := writeRootAtomic(root, name, prog, syncNone); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	fmt.Fprintf(c.out, "wrote %s (%d bytes) to the session's files/\n", name, len(prog))
	return nil
}

// openSessionFiles opens the session's files/ as a root.
func openSessionFiles(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openSubdir(root, "files")
}
