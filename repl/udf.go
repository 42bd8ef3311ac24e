package repl

import (
	"context"
	"fmt"
	"io"

	"github.com/replhost/replhost/udf"
)

// UDFs lists the session's registered UDFs.
func (s *Session) UDFs(ctx context.Context) ([]udf.Entry, error) {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	if _, err := s.ensureLoaded(ctx, io.Discard); err != nil {
		return nil, err
	}
	return s.ev.UDFs()
}

// CallUDF streams in, one record per line, through the session's UDF name;
// results go to out in input order, one error line per failed record to
// errOut. Cells wait meanwhile: a cell run during a call races with the
// UDF's frames in yaegi.
func (s *Session) CallUDF(ctx context.Context, name string, in io.Reader, out, errOut io.Writer) (failed int, err error) {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	defer s.touch()
	if _, err := s.ensureLoaded(ctx, errOut); err != nil {
		return 0, err
	}
	lc := &lineCounter{r: in}
	failed, err = s.ev.CallUDF(ctx, name, lc, out, errOut)
	e := Event{Kind: EventUDFCall, User: s.owner, Session: s.id, Name: name, Records: lc.records(), Failed: failed}
	if err != nil {
		e.Reason = err.Error()
	}
	s.m.emit(e)
	return failed, err
}

// printUDFs writes the :udfs listing.
func printUDFs(w io.Writer, list []udf.Entry) {
	if len(list) == 0 {
		fmt.Fprintln(w, `no UDFs registered (import "udf"; udf.Register("name", fn))`)
		return
	}
	for _, e := range list {
		fmt.Fprintln(w, e.String())
	}
}
