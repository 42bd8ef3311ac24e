// Package cmp implements the generic functions of the standard cmp package.
package cmp

import "cmp"

// Compare returns -1, 0 or +1; a NaN is less than any other value and
// equal to another NaN.
func Compare[T cmp.Ordered](x, y T) int {
	xNaN, yNaN := x != x, y != y
	if xNaN {
		if yNaN {
			return 0
		}
		return -1
	}
	if yNaN {
		return +1
	}
	if x < y {
		return -1
	}
	if x > y {
		return +1
	}
	return 0
}

// Less reports whether x sorts before y, NaNs first.
func Less[T cmp.Ordered](x, y T) bool {
	return (x != x && y == y) || x < y
}

// Or returns the first of vals that is not the zero value.
func Or[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}
