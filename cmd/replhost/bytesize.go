package main

import (
	"fmt"
	"strings"

	"github.com/docker/go-units"
)

// byteSize is a flag of a size in bytes, in the forms people write:
// 512Mi, 512MiB, 512m, 2G, 2g, 1.5GiB, 1048576. Every unit is binary
// (2g is 2 GiB), as docker's --memory and Kubernetes' Mi/Gi read them: go-units'
// RAMInBytes, the parser docker itself uses. (go-humanize reads 2G as 10^9.)
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return "0"
	}
	return units.BytesSize(float64(*b))
}

func (b *byteSize) Set(s string) error {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "i") || strings.HasSuffix(s, "I") {
		s += "B" // Kubernetes' 512Mi, which go-units spells 512MiB
	}
	n, err := units.RAMInBytes(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a size like 512MiB, 512Mi, 2G or 2g")
	}
	*b = byteSize(n)
	return nil
}
