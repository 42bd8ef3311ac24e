package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
  :quit          end the session and remove its directory
`

func isMeta(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), ":")
}

// meta runs a meta-command. done means the attachment ends with code.
func (it *interaction) meta(line string) (done bool, code int) {
	fields := strings.Fields(line)
	cmd, args := fields[0], fields[1:]
	s := it.s
	switch cmd {
	case ":help", ":h", ":?":
		fmt.Fprint(it.out, metaHelp)
	case ":session":
		info := s.Info()
		fmt.Fprintf(it.out, "session %s\ndirectory %s\nuser %s\nuptime %s\ncells %d\n",
			s.id, s.dir, s.owner, s.m.now().Sub(info.Created).Round(time.Second), s.JournalLen())
	case ":artifacts":
		it.listArtifacts()
	case ":reset":
		if err := s.Reset(it.ctx, it.out); err != nil {
			fmt.Fprintf(it.out, "error: %v\n", err)
		} else {
			fmt.Fprintln(it.out, "reset: fresh interpreter, journal cleared")
		}
	case ":reload":
		if err := s.Reload(it.ctx, it.out); err != nil {
			fmt.Fprintf(it.out, "error: %v\n", err)
		} else {
			fmt.Fprintf(it.out, "reloaded: %d cells replayed\n", s.JournalLen())
		}
	case ":load":
		if len(args) != 1 {
			fmt.Fprintln(it.out, "error: usage: :load FILE (a file of the session's files/)")
			return false, 0
		}
		src, err := readSessionFile(s.dir, args[0])
		if err != nil {
			fmt.Fprintf(it.out, "error: %v\n", err)
			return false, 0
		}
		it.run(src)
	case ":paste":
		it.paste()
	case ":udfs":
		list, err := s.UDFs(it.ctx)
		if err != nil {
			fmt.Fprintf(it.out, "error: %v\n", err)
			return false, 0
		}
		printUDFs(it.out, list)
	case ":quit", ":q", ":exit":
		s.m.Kill(s.owner, s.id)
		fmt.Fprintf(it.out, "session %s ended\n", s.id)
		return true, 0
	default:
		fmt.Fprintf(it.out, "error: unknown command %s (:help lists them)\n", cmd)
	}
	return false, 0
}

// paste reads lines up to ":end" or Ctrl-D and runs them as one cell.
func (it *interaction) paste() {
	fmt.Fprintln(it.out, "// paste mode: end with a line :end or Ctrl-D")
	it.rl.SetPrompt("")
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

// readSessionFile reads name inside the session's files/, refusing any path
// that leaves it (symlinks included: os.Root).
func readSessionFile(dir, name string) (string, error) {
	root, err := os.OpenRoot(filepath.Join(dir, "files"))
	if err != nil {
		return "", err
	}
	defer root.Close()
	b, err := root.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", name, err)
	}
	return string(b), nil
}

func (it *interaction) listArtifacts() {
	list, err := it.s.ListArtifacts()
	if err != nil {
		fmt.Fprintf(it.out, "error: %v\n", err)
		return
	}
	if len(list) == 0 {
		fmt.Fprintln(it.out, "no artifacts (upload with scp, sftp or: artifacts add --session UUID NAME < FILE)")
		return
	}
	for _, a := range list {
		fmt.Fprintf(it.out, "%s %d %s\n", a.Name, a.Size, a.SHA256)
	}
}
