package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// WorkerBinaryName is the worker-only binary (cmd/replhost-worker): the
// worker without the host's packages, whose package init (the etcd client,
// gRPC, protobuf, prometheus) every worker would run, used or not, ~1 MiB
// each (docs/memory.md). `go install ./cmd/...` and the Dockerfile put it
// beside replhost.
const WorkerBinaryName = "replhost-worker"

// workerBinary returns the binary to start as a worker and its arguments:
// exe if given, else WorkerBinaryName beside the host's executable if
// there is one, else the host's executable itself (`replhost worker`, as
// with `go run ./cmd/replhost`). nil args are []string{"worker"}, which
// the worker binary takes too.
func workerBinary(exe string, args []string) (string, []string, error) {
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return "", nil, fmt.Errorf("start worker: %w", err)
		}
		exe = self
		if beside := filepath.Join(filepath.Dir(self), WorkerBinaryName); isExecutable(beside) {
			exe = beside
		}
	}
	if args == nil {
		args = []string{"worker"}
	}
	return exe, args, nil
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// DefaultWorkerBinary is the binary a host started now would use for its
// workers with WorkerOptions.Executable "" (for its log).
func DefaultWorkerBinary() (string, error) {
	exe, _, err := workerBinary("", nil)
	return exe, err
}

// CheckWorkerBinary starts a worker of exe ("": the default, see
// WorkerOptions.Executable) as far as its handshake and ends it, so that a
// host refuses to start with a worker binary that is not of its build
// rather than fail every login.
func CheckWorkerBinary(ctx context.Context, exe string) error {
	exe, args, err := workerBinary(exe, nil)
	if err != nil {
		return err
	}
	pin, err := pinBinary(exe)
	if err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	w, err := spawnPinned(ctx, exe, args, 0, false, pin, pin.asksSources())
	if err != nil {
		return err
	}
	w.Close()
	return nil
}
