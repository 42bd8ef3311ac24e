package sandbox

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"sync"
)

// buildID names the running binary: the Go build id the linker wrote in
// its ELF note (a hash of its inputs: two builds of other code differ),
// else the module version and VCS revision. Host and worker must be the
// same build: the protocol of both sides lives in this package.
var buildID = sync.OnceValue(func() string {
	if f, err := elf.Open("/proc/self/exe"); err == nil {
		defer f.Close()
		if s := f.Section(".note.go.buildid"); s != nil && s.Size <= 4096 {
			if b, err := s.Data(); err == nil {
				sum := sha256.Sum256(b)
				return hex.EncodeToString(sum[:12])
			}
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		id := bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Key + "=" + s.Value
			}
		}
		return id
	}
	return "unknown"
})

// checkHello compares a worker's handshake with this host's, in the words
// of go-plugin's HandshakeConfig check: what differs and what to do.
func checkHello(h helloMsg, exe string) error {
	if h.Protocol != protocolVersion || h.Build != buildID() {
		return fmt.Errorf("worker %s speaks protocol %d of build %q; this host speaks protocol %d of build %q: "+
			"the worker binary must be the host's own (was the binary replaced while the host runs? restart the host)",
			exe, h.Protocol, cutText(h.Build, 80), protocolVersion, buildID())
	}
	return nil
}
