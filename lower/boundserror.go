package lower

import (
	"reflect"
	"strconv"
	"strings"
)

// BoundsError is a failed bounds check as Go's runtime words it (its
// boundsError): the index or bound x, printed signed or not as its type
// was, and y, the length, capacity or other bound.
type BoundsError struct {
	x      int64
	signed bool
	y      int
	code   boundsCode
}

type boundsCode uint8

const (
	boundsIndex boundsCode = iota
	boundsSliceAlen
	boundsSliceAcap
	boundsSliceB
	boundsSlice3Alen
	boundsSlice3Acap
	boundsSlice3B
	boundsSlice3C
)

// boundsFormats are the runtime's formats, by code; boundsNegFormats those
// for a negative x (no y).
var boundsFormats = [...]string{
	boundsIndex:      "index out of range [%x] with length %y",
	boundsSliceAlen:  "slice bounds out of range [:%x] with length %y",
	boundsSliceAcap:  "slice bounds out of range [:%x] with capacity %y",
	boundsSliceB:     "slice bounds out of range [%x:%y]",
	boundsSlice3Alen: "slice bounds out of range [::%x] with length %y",
	boundsSlice3Acap: "slice bounds out of range [::%x] with capacity %y",
	boundsSlice3B:    "slice bounds out of range [:%x:%y]",
	boundsSlice3C:    "slice bounds out of range [%x:%y:]",
}

var boundsNegFormats = [...]string{
	boundsIndex:      "index out of range [%x]",
	boundsSliceAlen:  "slice bounds out of range [:%x]",
	boundsSliceAcap:  "slice bounds out of range [:%x]",
	boundsSliceB:     "slice bounds out of range [%x:]",
	boundsSlice3Alen: "slice bounds out of range [::%x]",
	boundsSlice3Acap: "slice bounds out of range [::%x]",
	boundsSlice3B:    "slice bounds out of range [:%x:]",
	boundsSlice3C:    "slice bounds out of range [%x::]",
}

func (e BoundsError) Error() string {
	f := boundsFormats[e.code]
	if e.signed && e.x < 0 {
		f = boundsNegFormats[e.code]
	}
	x := strconv.FormatUint(uint64(e.x), 10)
	if e.signed {
		x = strconv.FormatInt(e.x, 10)
	}
	return "runtime error: " + strings.NewReplacer("%x", x, "%y", strconv.Itoa(e.y)).Replace(f)
}

// RuntimeError marks the value as a runtime.Error.
func (BoundsError) RuntimeError() {}

// IndexFail is the panic of s[i] with i outside [0, n).
func IndexFail(i int64, signed bool, n int) BoundsError {
	return BoundsError{x: i, signed: signed, y: n, code: boundsIndex}
}

// SliceFail is the panic of s[lo:hi] (kind 's' a slice, 'a' an array, 'g'
// a string; bound its capacity, or length) in the order Go checks: hi
// against the bound, then lo against hi. Without high (s[lo:]), hi is the
// length and only lo is checked.
func SliceFail(kind byte, lo int64, loSigned bool, hi int64, hiSigned, high bool, bound int) BoundsError {
	if high && uint64(hi) > uint64(bound) {
		code := boundsSliceAlen
		if kind == 's' {
			code = boundsSliceAcap
		}
		return BoundsError{x: hi, signed: hiSigned, y: bound, code: code}
	}
	return BoundsError{x: lo, signed: loSigned, y: int(hi), code: boundsSliceB}
}

// Slice3Fail is the panic of s[lo:hi:max], checked as Go does: max
// against the capacity, hi against max, lo against hi.
func Slice3Fail(kind byte, lo int64, loSigned bool, hi int64, hiSigned bool, mx int64, mxSigned bool, bound int) BoundsError {
	switch {
	case uint64(mx) > uint64(bound):
		code := boundsSlice3Alen
		if kind == 's' {
			code = boundsSlice3Acap
		}
		return BoundsError{x: mx, signed: mxSigned, y: bound, code: code}
	case uint64(hi) > uint64(mx):
		return BoundsError{x: hi, signed: hiSigned, y: int(mx), code: boundsSlice3B}
	}
	return BoundsError{x: lo, signed: loSigned, y: int(hi), code: boundsSlice3C}
}

func init() {
	Runtime[rtPath+"/rt"]["IndexFail"] = reflect.ValueOf(IndexFail)
	Runtime[rtPath+"/rt"]["SliceFail"] = reflect.ValueOf(SliceFail)
	Runtime[rtPath+"/rt"]["Slice3Fail"] = reflect.ValueOf(Slice3Fail)
}
