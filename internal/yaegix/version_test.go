package yaegix

import (
	"os"
	"testing"

	"golang.org/x/mod/modfile"
)

const yaegiModule = "github.com/traefik/yaegi"

// TestVersionIsGoMods fails on an upgrade of yaegi until this package (and
// every behaviour pinned in its tests) has been checked against the new
// version and Version moved with it. (go.mod, not debug.ReadBuildInfo: a
// test binary's build info lists no dependencies.)
func TestVersionIsGoMods(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax("go.mod", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range f.Require {
		if r.Mod.Path == yaegiModule {
			found = true
			if r.Mod.Version != Version {
				t.Errorf("go.mod requires yaegi %s; internal/yaegix was written for %s: check every behaviour it pins, then move Version", r.Mod.Version, Version)
			}
		}
	}
	for _, r := range f.Replace {
		if r.Old.Path == yaegiModule {
			t.Errorf("go.mod replaces yaegi (%s): internal/yaegix pins the released %s", r.New, Version)
		}
	}
	if !found {
		t.Errorf("go.mod does not require %s", yaegiModule)
	}
}
