package lower

import (
	"io"
	"reflect"
	"strconv"
	"sync"

	"github.com/traefik/yaegi/interp"
)

// rtPath is the native package of helpers the lowered code calls; Runtime
// holds its symbols, for the interpreter to Use beside the standard ones.
const rtPath = "replhost.internal/rt"

// Runtime are the native helpers of lowered code (the interpreter must Use
// them whatever its allowlist).
var Runtime = interp.Exports{
	rtPath + "/rt": {
		"Printer":      reflect.ValueOf(Printer),
		"Recovered":    reflect.ValueOf(Recovered),
		"Stringer":     reflect.ValueOf(Stringer),
		"Errorer":      reflect.ValueOf(Errorer),
		"ShiftCount":   reflect.ValueOf(ShiftCount),
		"AssertFailed": reflect.ValueOf(AssertFailed),
		"Exiting":      reflect.ValueOf(Exiting),
		"Exitingf":     reflect.ValueOf(Exitingf),
		"GoPanic":      reflect.ValueOf(GoPanic),
	},
}

// printMu makes one print or println call one write, as the runtime's
// print lock does.
var printMu sync.Mutex

// Printer returns the builtin print (ln false) or println (ln true)
// writing to w; see Print.
func Printer(w io.Writer, ln bool, kinds string) func(args ...any) {
	return func(args ...any) { Print(w, ln, kinds, args...) }
}

// Print is the builtin print (ln false) and println (ln true) in the Go
// runtime's format, written to w (the code's os.Stderr, where Go writes
// them). kinds holds a letter per argument for what its static type was:
// 'i' an interface, 'n' the untyped nil, '.' anything else.
func Print(w io.Writer, ln bool, kinds string, args ...any) {
	var b []byte
	for i, a := range args {
		if ln && i > 0 {
			b = append(b, ' ')
		}
		k := byte('.')
		if i < len(kinds) {
			k = kinds[i]
		}
		b = appendPrint(b, k, a)
	}
	if ln {
		b = append(b, '\n')
	}
	printMu.Lock()
	defer printMu.Unlock()
	w.Write(b)
}

func appendPrint(b []byte, kind byte, a any) []byte {
	switch kind {
	case 'n':
		return append(b, "nil"...)
	case 'i':
		if a == nil {
			return append(b, "(0x0,0x0)"...)
		}
		t := reflect.ValueOf(reflect.TypeOf(a)).Pointer()
		return append(append(append(appendHex(append(b, '('), uint64(t)), ','), appendHex(nil, dataWord(a))...), ')')
	}
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Float32:
		return strconv.AppendFloat(b, v.Float(), 'g', -1, 32)
	case reflect.Float64:
		return strconv.AppendFloat(b, v.Float(), 'g', -1, 64)
	case reflect.Complex64:
		return append(b, strconv.FormatComplex(v.Complex(), 'g', -1, 64)...)
	case reflect.Complex128:
		return append(b, strconv.FormatComplex(v.Complex(), 'g', -1, 128)...)
	case reflect.String:
		return append(b, v.String()...)
	case reflect.Slice:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(v.Len()), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(v.Cap()), 10)
		return appendHex(append(b, ']'), uint64(v.Pointer()))
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return appendHex(b, uint64(v.Pointer()))
	case reflect.Invalid:
		return append(b, "nil"...)
	}
	return append(b, "(?)"...) // arrays and structs do not compile under go
}

// dataWord stands for an interface's data word: the pointer it holds, or
// a non-zero word for a value stored inline.
func dataWord(a any) uint64 {
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return uint64(v.Pointer())
	}
	return 0xc000010000
}

func appendHex(b []byte, v uint64) []byte {
	return strconv.AppendUint(append(b, "0x"...), v, 16)
}
