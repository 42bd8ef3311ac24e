//go:build !race

package sandbox

// raceEnv is empty outside race builds (see worker_race.go).
var raceEnv []string
