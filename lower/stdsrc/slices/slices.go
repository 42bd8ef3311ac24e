// Package slices implements the generic functions of the standard slices
// package. Sorting is a merge sort (stable, n log n) for every variant.
package slices

import (
	"cmp"
	"iter"
)

// All iterates over the indexes and elements of s.
func All[Slice ~[]E, E any](s Slice) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

// Backward iterates over s from its end.
func Backward[Slice ~[]E, E any](s Slice) iter.Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Values iterates over the elements of s.
func Values[Slice ~[]E, E any](s Slice) iter.Seq[E] {
	return func(yield func(E) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
}

// AppendSeq appends the values of seq to s.
func AppendSeq[Slice ~[]E, E any](s Slice, seq iter.Seq[E]) Slice {
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Collect gathers the values of seq in a new slice.
func Collect[E any](seq iter.Seq[E]) []E {
	var s []E
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Sorted collects and sorts the values of seq.
func Sorted[E cmp.Ordered](seq iter.Seq[E]) []E {
	s := Collect(seq)
	Sort(s)
	return s
}

// SortedFunc collects the values of seq and sorts them with cmp.
func SortedFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	s := Collect(seq)
	SortFunc(s, cmp)
	return s
}

// SortedStableFunc collects the values of seq and sorts them stably.
func SortedStableFunc[E any](seq iter.Seq[E], cmp func(E, E) int) []E {
	s := Collect(seq)
	SortStableFunc(s, cmp)
	return s
}

// Chunk iterates over consecutive sub-slices of up to n elements.
func Chunk[Slice ~[]E, E any](s Slice, n int) iter.Seq[Slice] {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func(Slice) bool) {
		for i := 0; i < len(s); i += n {
			end := i + n
			if end > len(s) {
				end = len(s)
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
}

// Sort sorts x in ascending order, NaNs first.
func Sort[S ~[]E, E cmp.Ordered](x S) {
	SortFunc(x, cmp.Compare[E])
}

// SortFunc sorts x by cmp.
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	mergeSort([]E(x), make([]E, len(x)), cmp)
}

// SortStableFunc sorts x by cmp, keeping equal elements in order.
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	mergeSort([]E(x), make([]E, len(x)), cmp)
}

func mergeSort[E any](x, buf []E, cmp func(a, b E) int) {
	n := len(x)
	if n <= 12 {
		for i := 1; i < n; i++ {
			for j := i; j > 0 && cmp(x[j], x[j-1]) < 0; j-- {
				x[j], x[j-1] = x[j-1], x[j]
			}
		}
		return
	}
	m := n / 2
	mergeSort(x[:m], buf[:m], cmp)
	mergeSort(x[m:], buf[m:], cmp)
	if cmp(x[m], x[m-1]) >= 0 {
		return
	}
	copy(buf, x)
	i, j, k := 0, m, 0
	for i < m && j < n {
		if cmp(buf[j], buf[i]) < 0 {
			x[k] = buf[j]
			j++
		} else {
			x[k] = buf[i]
			i++
		}
		k++
	}
	for i < m {
		x[k] = buf[i]
		i++
		k++
	}
	for j < n {
		x[k] = buf[j]
		j++
		k++
	}
}

// IsSorted reports whether x is in ascending order.
func IsSorted[S ~[]E, E cmp.Ordered](x S) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp.Less(x[i], x[i-1]) {
			return false
		}
	}
	return true
}

// IsSortedFunc reports whether x is sorted by cmp.
func IsSortedFunc[S ~[]E, E any](x S, cmp func(a, b E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

// BinarySearch finds target in sorted x: its index, or where it would go.
func BinarySearch[S ~[]E, E cmp.Ordered](x S, target E) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if cmp.Less(x[h], target) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(x) && (x[lo] == target || (x[lo] != x[lo] && target != target))
}

// BinarySearchFunc is BinarySearch with cmp comparing an element to target.
func BinarySearchFunc[S ~[]E, E, T any](x S, target T, cmp func(E, T) int) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if cmp(x[h], target) < 0 {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(x) && cmp(x[lo], target) == 0
}

// Min returns the smallest element; it panics on an empty slice.
func Min[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if v != v {
			return v
		}
		if v < m {
			m = v
		}
	}
	return m
}

// MinFunc returns the first smallest element by cmp.
func MinFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) < 0 {
			m = v
		}
	}
	return m
}

// Max returns the largest element; it panics on an empty slice.
func Max[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if v != v {
			return v
		}
		if v > m {
			m = v
		}
	}
	return m
}

// MaxFunc returns the first largest element by cmp.
func MaxFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) > 0 {
			m = v
		}
	}
	return m
}

// Index returns the index of the first v in s, or -1.
func Index[S ~[]E, E comparable](s S, v E) int {
	for i := range s {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// IndexFunc returns the index of the first element satisfying f, or -1.
func IndexFunc[S ~[]E, E any](s S, f func(E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// Contains reports whether v is in s.
func Contains[S ~[]E, E comparable](s S, v E) bool {
	return Index(s, v) >= 0
}

// ContainsFunc reports whether an element satisfies f.
func ContainsFunc[S ~[]E, E any](s S, f func(E) bool) bool {
	return IndexFunc(s, f) >= 0
}

// Equal reports whether the slices have equal lengths and elements.
func Equal[S ~[]E, E comparable](s1, s2 S) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

// EqualFunc is Equal with eq comparing the elements.
func EqualFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, eq func(E1, E2) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if !eq(s1[i], s2[i]) {
			return false
		}
	}
	return true
}

// Compare compares the slices element by element, then by length.
func Compare[S ~[]E, E cmp.Ordered](s1, s2 S) int {
	for i := 0; i < len(s1) && i < len(s2); i++ {
		if c := cmp.Compare(s1[i], s2[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(s1), len(s2))
}

// CompareFunc is Compare with cmp comparing the elements.
func CompareFunc[S1 ~[]E1, S2 ~[]E2, E1, E2 any](s1 S1, s2 S2, cmp func(E1, E2) int) int {
	for i := 0; i < len(s1) && i < len(s2); i++ {
		if c := cmp(s1[i], s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	if len(s1) > len(s2) {
		return +1
	}
	return 0
}

// Clone returns a copy of s (nil for nil).
func Clone[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	return append(S([]E{}), s...)
}

// Clip removes the unused capacity of s.
func Clip[S ~[]E, E any](s S) S {
	return s[:len(s):len(s)]
}

// Grow makes room for n more elements.
func Grow[S ~[]E, E any](s S, n int) S {
	if n < 0 {
		panic("cannot be negative")
	}
	if n > cap(s)-len(s) {
		s = append(s[:cap(s)], make([]E, n-cap(s)+len(s))...)[:len(s)]
	}
	return s
}

// Concat joins the slices in a new one.
func Concat[S ~[]E, E any](slices ...S) S {
	size := 0
	for _, s := range slices {
		size += len(s)
	}
	r := make(S, 0, size)
	for _, s := range slices {
		r = append(r, s...)
	}
	return r
}

// Repeat returns count copies of x one after the other.
func Repeat[S ~[]E, E any](x S, count int) S {
	if count < 0 {
		panic("cannot be negative")
	}
	r := make(S, 0, len(x)*count)
	for i := 0; i < count; i++ {
		r = append(r, x...)
	}
	return r
}

// Insert inserts v at index i.
func Insert[S ~[]E, E any](s S, i int, v ...E) S {
	_ = s[i:]
	r := make(S, 0, len(s)+len(v))
	r = append(r, s[:i]...)
	r = append(r, v...)
	return append(r, s[i:]...)
}

// Delete removes s[i:j], zeroing the tail.
func Delete[S ~[]E, E any](s S, i, j int) S {
	_ = s[i:j:len(s)]
	if i == j {
		return s
	}
	n := len(s)
	s = append(s[:i], s[j:]...)
	var zero E
	for k := len(s); k < n; k++ {
		s[:n][k] = zero
	}
	return s
}

// DeleteFunc removes the elements satisfying del, zeroing the tail.
func DeleteFunc[S ~[]E, E any](s S, del func(E) bool) S {
	n := len(s)
	k := 0
	for _, v := range s {
		if !del(v) {
			s[k] = v
			k++
		}
	}
	var zero E
	for i := k; i < n; i++ {
		s[i] = zero
	}
	return s[:k]
}

// Replace replaces s[i:j] by v.
func Replace[S ~[]E, E any](s S, i, j int, v ...E) S {
	_ = s[i:j]
	tail := Clone(s[j:])
	n := len(s)
	r := append(append(s[:i], v...), tail...)
	if len(r) < n {
		var zero E
		for k := len(r); k < n; k++ {
			s[:n][k] = zero
		}
	}
	return r
}

// Compact replaces runs of equal elements by one copy.
func Compact[S ~[]E, E comparable](s S) S {
	return CompactFunc(s, func(a, b E) bool { return a == b })
}

// CompactFunc is Compact with eq comparing the elements.
func CompactFunc[S ~[]E, E any](s S, eq func(E, E) bool) S {
	if len(s) < 2 {
		return s
	}
	n := len(s)
	k := 1
	for i := 1; i < n; i++ {
		if !eq(s[k-1], s[i]) {
			s[k] = s[i]
			k++
		}
	}
	var zero E
	for i := k; i < n; i++ {
		s[i] = zero
	}
	return s[:k]
}

// Reverse reverses s in place.
func Reverse[S ~[]E, E any](s S) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
