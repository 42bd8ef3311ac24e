//go:build race

package sandbox

// raceEnv keeps the race detector of a race-built worker from sleeping a
// second at exit (its atexit_sleep_ms), which would outlast closeGrace.
var raceEnv = []string{"GORACE=atexit_sleep_ms=0"}

// raceBuild lets tests scale their loads down under the race detector.
const raceBuild = true
