// Package procmem reads a process's memory from /proc/<pid>/smaps_rollup,
// for the benchmarks and the bench command that report memory per session.
package procmem

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
)

// Rollup is a process's proportional set size, all and anonymous, in bytes.
type Rollup struct {
	PSS, AnonPSS int64
}

// Of reads pid's rollup; an error when the process is gone or the kernel
// has no smaps_rollup.
func Of(pid int) (Rollup, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return Rollup{}, err
	}
	defer f.Close()
	var r Rollup
	var seen bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		field, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch field {
		case "Pss":
			dst, seen = &r.PSS, true
		case "Pss_Anon":
			dst = &r.AnonPSS
		default:
			continue
		}
		if kb := strings.Fields(rest); len(kb) > 0 {
			n, _ := strconv.ParseInt(kb[0], 10, 64)
			*dst = n << 10
		}
	}
	if err := sc.Err(); err != nil {
		return Rollup{}, err
	}
	if !seen {
		return Rollup{}, errors.New("procmem: no Pss in smaps_rollup of " + strconv.Itoa(pid))
	}
	return r, nil
}
