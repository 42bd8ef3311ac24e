// Package replhost holds the sources a session's worker is built from, so
// that a host can tell whether a worker binary (cmd/replhost-worker) was
// built from the same ones as itself (sandbox/worker_pairing.go). Go's
// build info cannot: without VCS stamping (GOFLAGS=-buildvcs=false, a
// worktree, a tarball) every build of the module is "(devel)".
//
// The list is every package of this module that cmd/replhost-worker
// links; TestWorkerSourcesCoverItsPackages (cmd/replhost-worker) keeps it
// whole. Test files come along: they cost nothing at run time (only the
// first worker of a binary hashes them) and can only make two builds
// differ. lower's export data (lower/stdexport.zip, 3.4 MiB, made from the
// Go release's standard library) is left out; the Go version is checked.
package replhost

import "embed"

// WorkerSources are the Go files of the packages a worker links, and
// go.mod and go.sum: the versions and hashes of the modules it links.
//
//go:embed sandbox/*.go lower/*.go lower/stdsrc udf/*.go cmd/replhost-worker/*.go
//go:embed internal/yaegix/*.go internal/fmtmirror/*.go internal/pretty/*.go
//go:embed internal/pkgname/*.go internal/diskusage/*.go internal/cpupin/*.go go.mod go.sum
var WorkerSources embed.FS

// WorkerSourceDirs are the directories of WorkerSources, the import paths
// of the packages below the module's.
var WorkerSourceDirs = []string{
	"sandbox", "lower", "udf", "cmd/replhost-worker",
	"internal/yaegix", "internal/fmtmirror", "internal/pretty",
	"internal/pkgname", "internal/diskusage", "internal/cpupin",
}
