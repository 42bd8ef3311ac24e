package repl

import (
	"context"
	"errors"
	"fmt"
	"github.com/replhost/replhost/internal/safefs"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// metaHelp is what :help prints.
const metaHelp = `Type Go at the prompt: imports, declarations and statements, one line or many.
An expression shows its value. Ctrl-C interrupts a cell; Ctrl-D at an empty
prompt detaches (the session stays; attach again with: attach UUID).
  :help          this text
  :session       uuid, directory, user, uptime
  :artifacts     the session's uploaded packages, files and archives
  :reset         fresh interpreter, journal cleared, artifacts kept
  :reload        fresh interpreter, journal replayed (picks up re-uploaded packages)
  :load FILE     run a file of the session's files/ as one cell
  :paste         everything up to a line :end (or Ctrl-D) is one cell
  :udfs          the registered UDFs and their signatures
  :get MOD[@V]   fetch a Go module and its dependencies into this session
  :journal       the cells a restore would replay, and cells a restore cut off
  :journal restore [FILE]  put cut-off cells back at the journal's end
  :drop N        take cell N out of the journal (the live interpreter keeps it)
  :type EXPR     the type of EXPR (nothing runs)
  :doc PKG[.NAME]  documentation of a standard or session package, or of one name
  :print         the session's journal as one gofmt'd Go program
  :write FILE    that program into the session's files/
  :quit          end the session and remove its directory
Meta-commands also work on a line of their own in scripts and eval.
`

func isMeta(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), ":")
}

// commander runs meta-commands for an interactive attachment or a script.
type commander struct {
	s      *Session
	ctx    context.Context
	out    io.Writer // what a command prints
	errOut io.Writer // where a command that reports its own errors writes them (:get)
	// run evaluates a cell (:load) and reports its error itself; it
	// returns false when the caller must stop (a script's failing cell).
	run func(cell string) bool
	// paste reads a pasted cell (:paste); nil where there is no terminal.
	paste func()
}

// errQuit is what exec returns for :quit: the session was ended.
var errQuit = errors.New("quit")

// exec runs the meta-command line. It returns errQuit after :quit, an error
// for the caller to report as one line, or errStop after a :load whose cell
// failed (already reported).
func (c *commander) exec(line string) error {
	fields := strings.Fields(line)
	cmd, args := fields[0], fields[1:]
	s := c.s
	switch cmd {
	case ":help", ":h", ":?":
		fmt.Fprint(c.out, metaHelp)
	case ":session":
		info := s.Info()
		fmt.Fprintf(c.out, "session %s\ndirectory %s\nuser %s\nuptime %s\ncells %d\n",
			s.id, s.dir, s.owner, s.m.now().Sub(info.Created).Round(time.Second), s.JournalLen())
	case ":artifacts":
		return c.listArtifacts()
	case ":reset":
		if err := s.Reset(c.ctx, c.out); err != nil {
			return err
		}
		fmt.Fprintln(c.out, "reset: fresh interpreter, journal cleared")
	case ":reload":
		n, err := s.Reload(c.ctx, c.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "reloaded: %d cells replayed\n", n)
	case ":load":
		if len(args) != 1 {
			return errors.New("usage: :load FILE (a file of the session's files/)")
		}
		src, err := readSessionFile(s.dir, args[0])
		if err != nil {
			return err
		}
		if !c.run(src) {
			return errStop
		}
	case ":paste":
		if c.paste == nil {
			return errors.New(":paste needs a terminal; in a script, code is run as it comes")
		}
		c.paste()
	case ":get":
		if c.getModules(args, c.errOut) {
			return errReported
		}
	case ":udfs":
		list, err := s.UDFs(c.ctx)
		if err != nil {
			return err
		}
		printUDFs(c.out, list)
	case ":journal":
		return c.journal(args)
	case ":drop":
		return c.drop(args)
	case ":type":
		return c.typeOf(args, line)
	case ":doc":
		return c.doc(args)
	case ":print":
		prog, err := c.program()
		if err != nil {
			return err
		}
		c.out.Write(prog)
	case ":write":
		return c.write(args)
	case ":quit", ":q", ":exit":
		s.m.Kill(s.owner, s.id)
		fmt.Fprintf(c.out, "session %s ended\n", s.id)
		return errQuit
	default:
		return fmt.Errorf("unknown command %s (:help lists them)", cmd)
	}
	return nil
}

// errStop ends a script after a :load whose cell failed (and said so).
var errStop = errors.New("stop")

// errReported is a command's failure already reported on errOut: a script
// ends with status 1 and no further line.
var errReported = errors.New("failed")

// meta runs a meta-command at the prompt. done means the attachment ends
// with code.
func (it *interaction) meta(line string) (done bool, code int) {
	c := &commander{s: it.s, ctx: it.ctx, out: it.out, errOut: it.out, paste: it.paste,
		run: func(cell string) bool { it.run(cell); return true }}
	switch err := c.exec(line); {
	case errors.Is(err, errQuit):
		return true, 0
	case errors.Is(err, errStop), errors.Is(err, errReported):
	case err != nil:
		fmt.Fprintf(it.out, "error: %v\n", err)
	}
	return false, 0
}

// journal lists the cells a restore would replay, numbered as :drop takes
// them, and the cells restores cut off; ":journal restore [FILE]" puts cut
// cells back.
func (c *commander) journal(args []string) error {
	j := c.s.journal
	if len(args) > 0 {
		if args[0] != "restore" || len(args) > 2 {
			return errors.New("usage: :journal, or :journal restore [FILE]")
		}
		name := ""
		if len(args) == 2 {
			name = args[1]
		}
		cut, err := j.RestoreCut(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "%s of %s put back at the end of the journal; the live interpreter is untouched (:reload runs them)\n",
			plural(len(cut.Cells), "cell"), cut.Name)
		return nil
	}
	cells, err := j.Cells()
	if err != nil {
		return err
	}
	if len(cells) == 0 {
		fmt.Fprintln(c.out, "journal: empty (a restore replays nothing)")
	} else {
		fmt.Fprintf(c.out, "journal: %s, replayed in this order by a restore (:drop N takes one out)\n", plural(len(cells), "cell"))
		printCells(c.out, cells)
	}
	cuts, errs, err := j.Cuts()
	if err != nil {
		return err
	}
	for _, cut := range cuts {
		fmt.Fprintf(c.out, "cut off by a restore, in %s/%s: %s (:journal restore %s puts them back)\n",
			journalDir, cut.Name, plural(len(cut.Cells), "cell"), cut.Name)
		printCells(c.out, cut.Cells)
	}
	for _, err := range errs {
		fmt.Fprintf(c.out, "unreadable cut file: %v\n", err)
	}
	return nil
}

func printCells(w io.Writer, cells []string) {
	width := len(strconv.Itoa(len(cells)))
	for i, cell := range cells {
		fmt.Fprintf(w, "  %*d  %s\n", width, i+1, cellSummary(cell))
	}
}

// drop takes cell N (as :journal numbers them) out of the journal.
func (c *commander) drop(args []string) error {
	n, err := 0, error(nil)
	if len(args) == 1 {
		n, err = strconv.Atoi(args[0])
	}
	if len(args) != 1 || err != nil || n < 1 {
		return errors.New("usage: :drop N (a cell number that :journal shows)")
	}
	if err := c.s.m.checkFence(c.s.id); err != nil {
		return err
	}
	cell, err := c.s.journal.Drop(n - 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "dropped cell %d (%s) from the journal; the live interpreter is untouched (a later :reload or restore runs without it)\n",
		n, cellSummary(cell))
	return nil
}

// paste reads lines up to ":end" or Ctrl-D and runs them as one cell.
func (it *interaction) paste() {
	fmt.Fprintln(it.out, "// paste mode: end with a line :end or Ctrl-D")
	it.setPrompt("")
	var cell strings.Builder
	discard := false
	for {
		line, err := it.rl.Readline()
		if errors.Is(err, io.EOF) {
			it.sawEOF = true
		}
		if err != nil && it.ctx.Err() != nil {
			return
		}
		if more, ok := it.filter.takeDirect(); ok {
			discard = discard || more.tooLarge
			fmt.Fprintln(it.out, more.text)
			line += more.text
		}
		if err != nil || strings.TrimSpace(line) == ":end" {
			break
		}
		if discard = discard || cell.Len()+len(line) >= MaxCell; discard {
			cell.Reset() // the rest up to :end is dropped as it comes
			continue
		}
		cell.WriteString(decodePaste(line))
		cell.WriteByte('\n')
	}
	if discard {
		fmt.Fprintln(it.out, tooLargeLine)
		return
	}
	src := strings.TrimRight(cell.String(), "\n")
	if strings.TrimSpace(src) == "" {
		return
	}
	it.saveHistory(src)
	it.run(src)
}

// readSessionFile reads name inside the session's files/ as hostile input:
// through an os.Root of files/ (no path or symlink leaves it), a regular
// file, at most a cell's size.
func readSessionFile(dir, name string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	files, err := openSubdir(root, "files")
	if err != nil {
		return "", fmt.Errorf("load %s: %w", name, err)
	}
	defer files.Close()
	b, err := safefs.Read(files, name, MaxCell)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", name, err)
	}
	return string(b), nil
}

func (c *commander) listArtifacts() error {
	list, err := c.s.ListArtifacts()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(c.out, "no artifacts (upload with scp, sftp or: artifacts add --session UUID NAME < FILE)")
		return nil
	}
	for _, a := range list {
		fmt.Fprintf(c.out, "%s %d %s\n", a.Name, a.Size, a.SHA256)
	}
	return nil
}
