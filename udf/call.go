package udf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// A caller applies one Func to records and renders the results. Each worker
// owns one, so its scratch space is reused without locking.
type caller struct {
	f     *Func
	args  []reflect.Value
	vals  []reflect.Value // reused values for scalar arguments
	elems [][2]int        // bounds of the elements of a JSON array
	raw   []json.RawMessage
	num   [20]byte      // an int result, formatted
	tmp   bytes.Buffer  // JSON output of one record
	enc   *json.Encoder // writes into tmp
}

func newCaller(f *Func) *caller {
	c := &caller{f: f, args: make([]reflect.Value, f.typ.NumIn())}
	for i := range c.args {
		c.vals = append(c.vals, reflect.New(f.typ.In(i)).Elem())
	}
	c.enc = json.NewEncoder(&c.tmp)
	c.enc.SetEscapeHTML(false) // users expect "a<b", not "a\u003cb"
	return c
}

// call runs the function on one record, given both as bytes and as a string
// (the string only when the record is the argument itself), and appends the
// output line, if any, to out. On failure out is left as it was and the error
// says why; a panic in the function is recovered into the error.
func (c *caller) call(out *bytes.Buffer, rec []byte, str string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	switch f := c.f; {
	case f.str != nil:
		out.WriteString(f.str(str))
		out.WriteByte('\n')
		return nil
	case f.strErr != nil:
		s, err := f.strErr(str)
		if err != nil {
			return callError(err)
		}
		out.WriteString(s)
		out.WriteByte('\n')
		return nil
	case f.lineArg:
		c.args[0] = reflect.ValueOf(str).Convert(f.typ.In(0))
	default:
		if err := c.decodeArgs(rec); err != nil {
			return err
		}
	}
	res := c.f.val.Call(c.args)
	clear(c.args) // let the arguments go
	if i := c.f.errRes; i >= 0 && !res[i].IsNil() {
		return callError(res[i].Interface().(error))
	}
	if i := c.f.value; i >= 0 {
		return c.render(out, res[i])
	}
	return nil // no value: success writes no line
}

// decodeArgs decodes rec, a JSON array, into the function's arguments.
func (c *caller) decodeArgs(rec []byte) error {
	if c.fastArgs(rec) {
		return nil
	}
	return c.jsonArgs(rec)
}

// jsonArgs decodes rec, a JSON array, into the arguments with encoding/json.
func (c *caller) jsonArgs(rec []byte) error {
	c.raw = c.raw[:0]
	if err := json.Unmarshal(rec, &c.raw); err != nil {
		return fmt.Errorf("want a JSON array of %d arguments: %v", len(c.args), err)
	}
	if len(c.raw) != len(c.args) {
		return fmt.Errorf("want a JSON array of %d arguments, got %d", len(c.args), len(c.raw))
	}
	for i, raw := range c.raw {
		p := reflect.New(c.f.typ.In(i))
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			return fmt.Errorf("argument %d: %v", i+1, err)
		}
		c.args[i] = p.Elem()
	}
	return nil
}

// render appends v as a line: a string as is, anything else as JSON.
func (c *caller) render(out *bytes.Buffer, v reflect.Value) error {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		out.WriteString(v.String())
		out.WriteByte('\n')
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		out.Write(strconv.AppendInt(c.num[:0], v.Int(), 10))
		out.WriteByte('\n')
		return nil
	case reflect.Bool:
		out.WriteString(strconv.FormatBool(v.Bool()))
		out.WriteByte('\n')
		return nil
	}
	c.tmp.Reset()
	if err := c.enc.Encode(v.Interface()); err != nil { // Encode ends the line
		return fmt.Errorf("result: %v", err)
	}
	out.Write(c.tmp.Bytes())
	return nil
}

// callError takes the message of an error the function returned. It runs
// inside call's recover, as an interpreted Error method may panic.
func callError(err error) error { return errors.New(err.Error()) }
