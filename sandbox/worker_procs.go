package sandbox

import (
	"runtime"
	"sync"
)

// workerProcs is the GOMAXPROCS a worker starts with (workerEnv): one P.
// Each P's cache holds a partly used span of every size class it
// allocated from, so on 2 cores a second P made an idle worker ~0.25 MiB
// larger; a session's cells run one at a time. A UDF call, whose records
// run in parallel (udf.Run: a goroutine per P), gives the worker the
// runtime's default for the rest of its life (useAllProcs).
const workerProcs = "GOMAXPROCS=1"

var allProcs sync.Once

// useAllProcs sets GOMAXPROCS to the runtime's default (the CPUs and the
// cgroup's quota), once.
func useAllProcs() { allProcs.Do(runtime.SetDefaultGOMAXPROCS) }
