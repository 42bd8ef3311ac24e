package testhost

import (
	"os"
	"strconv"
	"strings"
)

// procStat returns the fields of /proc/<pid>/stat after the command name:
// state, ppid, ...; nil when the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// Alive is false for a process that is gone or a zombie.
func Alive(pid int) bool {
	f := procStat(pid)
	return len(f) > 0 && f[0] != "Z"
}

// Children lists the live processes whose parent is parent.
func Children(parent int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	want := strconv.Itoa(parent)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(pid); len(f) > 1 && f[1] == want && f[0] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids
}
