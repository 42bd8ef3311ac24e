package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/replhost/replhost/modules"
)

// ErrNoModules is the answer to :get on a host without a module fetcher.
var ErrNoModules = errors.New("this host fetches no modules (start it with --goproxy)")

// GetModule fetches spec (MODULE[@VERSION]) with its dependencies into the
// session's classes/src, where the next import finds it. The live
// interpreter keeps a version it already imported until :reload.
func (s *Session) GetModule(ctx context.Context, spec string) (modules.Result, error) {
	f := s.m.cfg.Modules
	if f == nil {
		return modules.Result{}, ErrNoModules
	}
	return f.Get(ctx, spec, filepath.Join(s.dir, "classes"), s.m.cfg.ModuleAllowed)
}

// getModules runs :get MODULE[@VERSION] ..., one line per module.
func (c *commander) getModules(args []string, errOut io.Writer) (failed bool) {
	if len(args) == 0 {
		fmt.Fprintln(errOut, "error: usage: :get MODULE[@VERSION] ...")
		return true
	}
	for _, spec := range args {
		res, err := c.s.GetModule(c.ctx, spec)
		if err != nil {
			fmt.Fprintf(errOut, "error: :get %s: %v\n", spec, strings.TrimPrefix(err.Error(), "modules: "))
			failed = true
			continue
		}
		fmt.Fprintf(c.out, "%s; import it by its path (:reload picks up a new version of one already imported)\n", res)
	}
	return failed
}
