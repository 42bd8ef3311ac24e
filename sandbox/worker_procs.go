package sandbox

import (
	"go/scanner"
	"go/token"
	"runtime"
	"strings"
	"sync"
)

// workerProcs is the GOMAXPROCS a worker starts with (workerEnv): one P.
// Each P's cache holds a partly used span of every size class it
// allocated from, so on 2 cores a second P made an idle worker ~0.25 MiB
// larger; a session's cells run one at a time. Code that starts
// goroutines of its own (a go statement: its goroutines run in parallel
// in Go, and a data race among them is found there) and a UDF call, whose
// records run in parallel (udf.Run: a goroutine per P), give the worker
// the runtime's default for the rest of its life (useAllProcs).
const workerProcs = "GOMAXPROCS=1"

var allProcs sync.Once

// useAllProcs sets GOMAXPROCS to the runtime's default (the CPUs and the
// cgroup's quota), once.
func useAllProcs() { allProcs.Do(runtime.SetDefaultGOMAXPROCS) }

// procsFor raises the worker's GOMAXPROCS before code that has a go
// statement runs (see workerProcs).
func procsFor(code string) {
	if hasGoStmt(code) {
		useAllProcs()
	}
}

// hasGoStmt reports whether code has the keyword go, as a Go scanner sees
// it (not in a string or comment). Code that does not scan is looked at as
// far as it does.
func hasGoStmt(code string) bool {
	if !strings.Contains(code, "go") {
		return false
	}
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, 0)
	for {
		_, tok, _ := s.Scan()
		switch tok {
		case token.GO:
			return true
		case token.EOF:
			return false
		}
	}
}
