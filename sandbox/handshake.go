package sandbox

import (
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/replhost/replhost"
)

// buildID names the running binary: see binaryID.
var buildID = sync.OnceValue(func() string {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	return binaryID(f)
})

// binaryID names a binary: a hash of the Go build id the linker wrote in
// its ELF note (a hash of its inputs: two builds of other code differ),
// else its module version and VCS revision.
func binaryID(f *os.File) string {
	if ef, err := elf.NewFile(f); err == nil {
		if s := ef.Section(".note.go.buildid"); s != nil && s.Size <= 4096 {
			if b, err := s.Data(); err == nil {
				sum := sha256.Sum256(b)
				return hex.EncodeToString(sum[:12])
			}
		}
	}
	if bi, err := buildinfo.Read(f); err == nil {
		id := bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Key + "=" + s.Value
			}
		}
		return id
	}
	return "unknown"
}

// workerSourcesVar, set in a worker's environment, asks it for the digest
// of its sources (helloMsg.Sources).
const workerSourcesVar = "REPLHOST_WORKER_SOURCES"

// sourcesDigest is a hash of the sources the running binary's worker was
// built from (replhost.WorkerSources).
var sourcesDigest = sync.OnceValue(func() string {
	h := sha256.New()
	err := fs.WalkDir(replhost.WorkerSources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := replhost.WorkerSources.ReadFile(path)
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
})

// binaryPin is what a host knows of a worker binary, read from its file
// when the host first started it: its build id, whether it is the host's
// own binary, and whether a worker of it has shown the host's sources.
// Every later worker of that path must be that build, as a worker of the
// host's own binary must be the host's build.
type binaryPin struct {
	build    string
	own      bool        // the host's own build: the build id says it all
	other    error       // how its build info differs from the host's (sameBuild)
	verified atomic.Bool // a worker of it reported the host's sourcesDigest
}

var pins struct {
	mu sync.Mutex
	m  map[string]*binaryPin // by path
}

// pinBinary returns the pin of the worker binary exe, reading the file the
// first time. A binary that is not the host's own must be a build of the
// same module, Go version, dependencies and build settings (sameBuild)
// and, at its first worker's handshake, of the same sources. Both are
// checked at the handshake, so that a binary that is no worker at all
// fails as it starts.
func pinBinary(exe string) (*binaryPin, error) {
	pins.mu.Lock()
	defer pins.mu.Unlock()
	if p := pins.m[exe]; p != nil {
		return p, nil
	}
	f, err := os.Open(exe)
	if err != nil {
		return nil, fmt.Errorf("worker binary: %w", err)
	}
	defer f.Close()
	p := &binaryPin{build: binaryID(f)}
	p.own = p.build == buildID()
	if !p.own {
		p.other = sameBuild(f)
	}
	if pins.m == nil {
		pins.m = make(map[string]*binaryPin)
	}
	pins.m[exe] = p
	return p, nil
}

// asksSources reports whether a worker of p is to report its sources.
func (p *binaryPin) asksSources() bool { return !p.own && !p.verified.Load() }

// check compares a worker's handshake with the pin, in the words of
// go-plugin's HandshakeConfig check: what differs and what to do. A
// worker asked for its sources must report the host's, and verifies the
// binary; one not asked is accepted once the binary is verified.
func (p *binaryPin) check(h helloMsg, exe string, askedSources bool) error {
	if h.Protocol != protocolVersion || h.Build != p.build {
		return fmt.Errorf("worker %s speaks protocol %d of build %q; this host speaks protocol %d of build %q: "+
			"the worker binary must be the one the host started first (was the binary replaced while the host runs? restart the host)",
			exe, h.Protocol, cutText(h.Build, 80), protocolVersion, p.build)
	}
	if p.other != nil {
		return fmt.Errorf("worker %s %v: install both from one build (go install ./cmd/...)", exe, p.other)
	}
	if askedSources {
		if h.Sources != sourcesDigest() {
			return fmt.Errorf("worker %s was built from other sources (%q) than this host (%q): install both from one build (go install ./cmd/...)",
				exe, cutText(h.Sources, 80), sourcesDigest())
		}
		p.verified.Store(true)
	} else if p.asksSources() {
		return fmt.Errorf("worker %s: its sources were not checked", exe)
	}
	return nil
}

// sameBuild reports how the build info of the binary f differs from the
// running host's: Go version, main module, build settings, or a module
// the worker links at another version (the host may link more; a test
// binary lists none).
func sameBuild(f io.ReaderAt) error {
	w, err := buildinfo.Read(f)
	if err != nil {
		return fmt.Errorf("has no Go build info: %v", err)
	}
	h, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("cannot be checked: the host has no Go build info")
	}
	if w.GoVersion != h.GoVersion {
		return fmt.Errorf("was built with %s, the host with %s", w.GoVersion, h.GoVersion)
	}
	if a, b := modString(&w.Main), modString(&h.Main); a != b {
		return fmt.Errorf("is a build of %s, the host of %s", a, b)
	}
	hs := make(map[string]string, len(h.Settings))
	for _, s := range h.Settings {
		hs[s.Key] = s.Value
	}
	ws := make(map[string]string, len(w.Settings))
	for _, s := range w.Settings {
		ws[s.Key] = s.Value
		if v, ok := hs[s.Key]; !ok || v != s.Value {
			return fmt.Errorf("was built with %s=%q, the host with %q", s.Key, s.Value, v)
		}
	}
	for _, s := range h.Settings {
		if _, ok := ws[s.Key]; !ok {
			return fmt.Errorf("was built without %s=%q, which the host has", s.Key, s.Value)
		}
	}
	if len(h.Deps) == 0 {
		// A test binary lists no modules; go.sum is among the sources.
		return nil
	}
	hd := make(map[string]*debug.Module, len(h.Deps))
	for _, d := range h.Deps {
		hd[d.Path] = d
	}
	for _, d := range w.Deps {
		hm := hd[d.Path]
		if hm == nil {
			return fmt.Errorf("links %s, which the host does not", modString(d))
		}
		if a, b := modString(d), modString(hm); a != b {
			return fmt.Errorf("links %s, the host %s", a, b)
		}
	}
	return nil
}

// modString is a module's path, version, sum and replacement.
func modString(m *debug.Module) string {
	s := m.Path + "@" + m.Version
	if m.Sum != "" {
		s += " " + m.Sum
	}
	if m.Replace != nil {
		s += " => " + modString(m.Replace)
	}
	return s
}
