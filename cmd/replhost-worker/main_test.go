package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/replhost/replhost"
)

const module = "github.com/replhost/replhost"

// deps lists the packages the worker binary links, from go list.
func deps(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	return strings.Fields(string(out))
}

// The worker binary links none of the host's packages whose init would
// run in every worker: the etcd client, gRPC, prometheus (docs/memory.md).
func TestWorkerLinksNoHostPackages(t *testing.T) {
	var host []string
	for _, p := range deps(t) {
		if strings.Contains(p, "etcd") || strings.Contains(p, "prometheus") || strings.Contains(p, "grpc") ||
			p == module+"/cluster" || p == module+"/metrics" || p == module+"/sshd" || p == module+"/repl" {
			host = append(host, p)
		}
	}
	if len(host) > 0 {
		t.Errorf("replhost-worker links %d host packages: %v", len(host), host)
	}
}

// replhost.WorkerSources holds every package of the module the worker
// links, so that a host tells a worker built from other sources (and no
// package that is not linked, which would only cost binary size).
func TestWorkerSourcesCoverItsPackages(t *testing.T) {
	var linked []string
	for _, p := range deps(t) {
		if rel, ok := strings.CutPrefix(p, module+"/"); ok {
			linked = append(linked, rel)
		}
	}
	embedded := slices.Clone(replhost.WorkerSourceDirs)
	slices.Sort(linked)
	slices.Sort(embedded)
	if !slices.Equal(linked, embedded) {
		t.Errorf("the worker links %v; replhost.WorkerSourceDirs holds %v", linked, embedded)
	}
	for _, d := range embedded {
		files, err := replhost.WorkerSources.ReadDir(d)
		if err != nil || len(files) == 0 {
			t.Errorf("WorkerSources has no files of %s: %v", d, err)
		}
	}
}
