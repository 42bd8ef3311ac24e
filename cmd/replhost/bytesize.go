package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes: 512MiB, 1GiB, 2G, 1048576.
type byteSize int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
}

func (b *byteSize) String() string {
	for _, u := range sizeUnits[:4] {
		if v := int64(*b); v >= u.mult && v%u.mult == 0 && v/u.mult < 1024 {
			return fmt.Sprintf("%d%s", v/u.mult, u.suffix)
		}
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a size like 512MiB")
	}
	*b = byteSize(n * mult)
	return nil
}
