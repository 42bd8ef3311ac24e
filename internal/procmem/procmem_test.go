package procmem

import (
	"os"
	"testing"
)

func TestOfSelf(t *testing.T) {
	r, err := Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if r.PSS <= 0 || r.AnonPSS <= 0 || r.AnonPSS > r.PSS {
		t.Errorf("rollup of this process: %+v", r)
	}
}

func TestOfGone(t *testing.T) {
	if _, err := Of(-1); err == nil {
		t.Error("a process that does not exist has a rollup")
	}
}
