//go:build !race

package sandbox

// raceEnv is empty outside race builds (see worker_race.go).
var raceEnv []string

// raceBuild lets tests scale their loads down under the race detector.
const raceBuild = false
