package sandbox

import (
	"context"
	"fmt"
	"io"

	"github.com/replhost/replhost/udf"
)

// udfKey is where the udf package sits in yaegi's symbol tables.
const udfKey = "udf/udf"

// ensureUDF offers the udf package to the code, with a registry of this
// interpreter, unless the caller (the worker) brought its own.
func (in *Interp) ensureUDF(opts Options, notice io.Writer) error {
	for _, e := range opts.Use {
		if _, ok := e[udfKey]; ok {
			return nil
		}
	}
	in.reg = &udf.Registry{}
	return in.yi.Use(udf.Exports(in.reg, notice))
}

// UDFs lists the functions the session registered with udf.Register.
func (in *Interp) UDFs() ([]udf.Entry, error) {
	if in.reg == nil {
		return nil, nil
	}
	return in.reg.List(), nil
}

// CallUDF streams the records of in, one per line, through the session's
// UDF name, in parallel, results in input order (see udf.Run). It holds the
// interpreter: a cell run during a call races with the UDF's frames.
func (in *Interp) CallUDF(ctx context.Context, name string, r io.Reader, out, errOut io.Writer) (failed int, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return 0, ErrClosed
	}
	if in.reg == nil {
		return 0, fmt.Errorf("udf: no function %q registered in this session", name)
	}
	f, ok := in.reg.Lookup(name)
	if !ok {
		return 0, fmt.Errorf("udf: no function %q registered in this session (:udfs lists them)", name)
	}
	st, err := udf.Run(ctx, f, r, out, errOut, 0)
	return st.Failed, err
}
