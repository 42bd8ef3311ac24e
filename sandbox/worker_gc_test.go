package sandbox

import (
	"testing"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name    string
		live    uint64
		ceiling int
		want    int
	}{
		{"nothing-measured-yet", 0, 400, 400},
		{"under-the-runtime-minimum", 1 * mib, 400, 125},     // (1+4)/4 MiB: the minimum heap, scaled
		{"at-the-runtime-minimum", 2 * mib, 400, 150},        // (2+4)/4
		{"headroom-of-garbage", 3 * mib, 400, 133},           // 4/3
		{"live-larger-than-headroom", 8 * mib, 400, gcFloor}, // Go's default, no lower
		{"large-live-heap", 1 << 30, 400, gcFloor},
		{"tiny-heap-capped", 64 << 10, 400, 101},
		{"small-cap", 1 * mib, 100, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gcPercentFor(c.live, gcHeadroom, c.ceiling); got != c.want {
				t.Errorf("gcPercentFor(%d, %d, %d) = %d; want %d", c.live, gcHeadroom, c.ceiling, got, c.want)
			}
		})
	}
}

// A worker under a memory cap paces its collector from its live heap: a
// small session gets more than Go's default GOGC, a session holding more
// than gcHeadroom gets the default, whatever the cap's ceiling.
func TestWorkerPacesGCFromLiveHeap(t *testing.T) {
	w, _ := startWorker(t, "", WorkerOptions{})
	mustEval(t, w, "1+2", true)
	st, err := w.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if ceiling := gcPercent(testMemory); st.GCPercent <= gcFloor || st.GCPercent > ceiling {
		t.Errorf("GOGC after a first cell: %d; want in (%d, %d]", st.GCPercent, gcFloor, ceiling)
	}
	mustEval(t, w, `import "runtime"`, false)
	// The slice is the call's own: live at its collection, garbage after.
	mustEval(t, w, "func hold() byte { b := make([]byte, 32<<20); runtime.GC(); return b[0] }\nhold()", false)
	if st, err = w.Stats(); err != nil {
		t.Fatal(err)
	}
	if st.GCPercent != gcFloor {
		t.Errorf("GOGC holding 32 MiB: %d; want %d", st.GCPercent, gcFloor)
	}
	mustEval(t, w, "runtime.GC()", false)
	if st, err = w.Stats(); err != nil {
		t.Fatal(err)
	}
	if st.GCPercent <= gcFloor {
		t.Errorf("GOGC once the 32 MiB are dropped: %d; want above %d", st.GCPercent, gcFloor)
	}
}
