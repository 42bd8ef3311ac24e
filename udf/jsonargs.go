package udf

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// Decoding JSON arguments is most of a JSON record's cost, so common
// records take a fast path: split the array in one pass, then parse ints,
// bools and plain ASCII strings directly. Anything else, and every record
// the fast path can't take, goes through encoding/json, which also gives
// the error messages.

// fastArgs decodes rec into c.args and reports whether it could.
func (c *caller) fastArgs(rec []byte) bool {
	elems, ok := splitArray(rec, c.elems[:0])
	c.elems = elems
	if !ok || len(elems) != len(c.args) {
		return false
	}
	for i, e := range elems {
		t := c.f.typ.In(i)
		if v, ok := c.scalar(i, t, rec[e[0]:e[1]]); ok {
			c.args[i] = v
			continue
		}
		p := reflect.New(t)
		if json.Unmarshal(rec[e[0]:e[1]], p.Interface()) != nil {
			return false
		}
		c.args[i] = p.Elem()
	}
	return true
}

// scalar parses raw as argument i of type t if it is a plain int, bool or
// ASCII string without escapes, into a value the caller reuses (Call copies it).
func (c *caller) scalar(i int, t reflect.Type, raw []byte) (reflect.Value, bool) {
	v := c.vals[i]
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !jsonInt(raw) {
			return v, false
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return v, false
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !jsonInt(raw) || raw[0] == '-' {
			return v, false
		}
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return v, false
		}
		v.SetUint(n)
	case reflect.Bool:
		switch string(raw) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return v, false
		}
	case reflect.String:
		if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return v, false
		}
		for _, b := range raw[1 : len(raw)-1] {
			if b < 0x20 || b >= 0x80 || b == '"' || b == '\\' {
				return v, false
			}
		}
		v.SetString(string(raw[1 : len(raw)-1]))
	default:
		return v, false
	}
	return v, true
}

// jsonInt reports whether raw is a JSON integer: -?(0|[1-9][0-9]*).
func jsonInt(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 || (raw[0] == '0' && len(raw) > 1) {
		return false
	}
	for _, b := range raw {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// splitArray appends to elems the bounds of the elements of the JSON array
// rec. It checks the array's brackets and commas, not the elements, and
// reports false for anything it doesn't understand.
func splitArray(rec []byte, elems [][2]int) ([][2]int, bool) {
	i := skipSpace(rec, 0)
	if i == len(rec) || rec[i] != '[' {
		return elems, false
	}
	i = skipSpace(rec, i+1)
	if i < len(rec) && rec[i] == ']' {
		return elems, skipSpace(rec, i+1) == len(rec)
	}
	for {
		start, depth, inString := i, 0, false
		for ; i < len(rec); i++ {
			b := rec[i]
			if inString {
				switch b {
				case '\\':
					i++
				case '"':
					inString = false
				}
				continue
			}
			if depth == 0 && (b == ',' || b == ']') {
				break
			}
			switch b {
			case '"':
				inString = true
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			}
		}
		if i >= len(rec) {
			return elems, false
		}
		end := i
		for end > start && isSpace(rec[end-1]) {
			end--
		}
		if end == start {
			return elems, false
		}
		elems = append(elems, [2]int{start, end})
		if rec[i] == ']' {
			return elems, skipSpace(rec, i+1) == len(rec)
		}
		i = skipSpace(rec, i+1)
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

func skipSpace(rec []byte, i int) int {
	for i < len(rec) && isSpace(rec[i]) {
		i++
	}
	return i
}
