package fmtmirror

import "unicode/utf8"

// Args mirrors the operands of a Print-family call that passes them as one
// slice (fmt.Println(args...)): what the front end cannot see statically.
// Each is printed with %v, so each goes through Dynamic with conv (the
// session's type switch, nil when it has none). The slice is new: the
// caller's is left as it is.
func Args(args []any, conv func(any) any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = Dynamic(a, 0, 0, conv)
	}
	return out
}

// FormatArgs mirrors the operands of a Printf-family call that passes them
// as one slice (fmt.Printf(format, args...)), each by the verb format
// gives it, as fmt treats it: %v, %s, %x, %X and %q call String and Error
// (conv), %#v prints Go syntax (wrappers unwrapped), %p, %w and the
// operands of * are left as they are, the other verbs (%T too: the
// interpreted type's name is unknown here) call no method (wrappers
// unwrapped).
func FormatArgs(format string, args []any, conv func(any) any) []any {
	verbs := operandVerbs(format, len(args))
	out := make([]any, len(args))
	for i, a := range args {
		switch v := verbs[i]; v {
		case 'v', 's', 'x', 'X', 'q':
			out[i] = Dynamic(a, 0, 0, conv)
		case sharpV:
			out[i] = Dynamic(a, 0, Syntax, nil)
		case 'w':
			out[i] = asError(a, conv)
		case 'p', 0:
			out[i] = a
		default:
			out[i] = Dynamic(a, 0, Bare, nil)
		}
	}
	return out
}

// AsError asks conv for V as an error: a value of an interpreted error
// type in an []any is yaegi's wrapper, no error to fmt's %w; the
// session's conv converts it in interpreted code, which makes it one.
type AsError struct{ V any }

// asError is a, an operand of %w, as an error when conv makes it one.
func asError(a any, conv func(any) any) any {
	if _, ok := a.(error); ok || a == nil || conv == nil {
		return a
	}
	if e, ok := conv(AsError{a}).(error); ok && e != nil {
		return e
	}
	return a
}

// sharpV stands for %#v among the verbs.
const sharpV = -1

// operandVerbs gives, for each of n operands, the verb that format prints
// it with (the first, when an explicit index [k] names it again; %T and *
// wherever they are), sharpV for %#v, 0 for none or a * width or
// precision; it follows fmt's doPrintf.
func operandVerbs(format string, n int) []rune {
	verbs := make([]rune, n)
	seen := make([]bool, n)
	set := func(arg int, v rune) {
		switch {
		case arg < 0 || arg >= n:
		case v == 'T' || v == 0:
			verbs[arg], seen[arg] = v, true // unwrapped or as it is, wherever else it is
		case !seen[arg]:
			verbs[arg], seen[arg] = v, true
		}
	}
	arg := 0
	// index reads an explicit argument index [k] at i, if there is one.
	index := func(i int) int {
		if i >= len(format) || format[i] != '[' {
			return i
		}
		k, j := 0, i+1
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			k = k*10 + int(format[j]-'0')
			if k > 1<<20 {
				return j
			}
			j++
		}
		if j < len(format) && format[j] == ']' && j > i+1 {
			arg = k - 1
			return j + 1
		}
		return j
	}
	for i := 0; i < len(format); {
		if format[i] != '%' {
			i++
			continue
		}
		i++
		sharp := false
		for i < len(format) {
			switch format[i] {
			case '#':
				sharp = true
			case '+', '-', ' ', '0':
			default:
				goto width
			}
			i++
		}
	width:
		i = index(i)
		if i < len(format) && format[i] == '*' {
			set(arg, 0)
			arg++
			i++
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			i++
		}
		if i < len(format) && format[i] == '.' {
			i++
			i = index(i)
			if i < len(format) && format[i] == '*' {
				set(arg, 0)
				arg++
				i++
			}
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
		}
		i = index(i)
		if i >= len(format) {
			break
		}
		v, size := utf8.DecodeRuneInString(format[i:])
		i += size
		if v == '%' {
			continue
		}
		if v == 'v' && sharp {
			v = sharpV
		}
		set(arg, v)
		arg++
	}
	return verbs
}
