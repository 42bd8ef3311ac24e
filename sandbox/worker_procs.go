package sandbox

import (
	"runtime"
	"sync"
)

// workerProcs is the GOMAXPROCS a worker starts with (workerEnv): one P.
// Each P's cache holds a partly used span of every size class it
// allocated from, so on 2 cores a second P made an idle worker ~0.25 MiB
// larger; a session's cells run one at a time.
//
// The session's own goroutines stay on that one P: yaegi v0.16.1 is not
// safe for interpreted goroutines that run in parallel. Its select
// statement keeps one []reflect.SelectCase per statement, filled by
// every goroutine that runs it (interp/run.go, _select), so two
// goroutines in the same select on two Ps swap channels: Go's
// chan/powser1.go got wrong values or hung in most runs on 2 Ps, and
// passes every run on one. One P still interleaves goroutines (the
// runtime preempts them) as Go allows, only never two at once. A UDF
// call gives the worker the runtime's default for the rest of its life
// (useAllProcs): its records run in parallel by design (udf.Run, a
// goroutine per P), each calling the session's function.
const workerProcs = "GOMAXPROCS=1"

var allProcs sync.Once

// useAllProcs sets GOMAXPROCS to the runtime's default (the CPUs and the
// cgroup's quota), once.
func useAllProcs() { allProcs.Do(runtime.SetDefaultGOMAXPROCS) }
