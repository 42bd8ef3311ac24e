package sandbox

import (
	"fmt"
	"hash/fnv"
	"testing"
)

// Every slot of the default range gives a range NewWorkerRange takes, the
// last one too (a root that hashed there could not start the host).
func TestAutoRangeEverySlotStarts(t *testing.T) {
	seen := make(map[int]string) // slot → a root that hashes to it
	for i := 0; len(seen) < autoSlots && i < 1<<22; i++ {
		root := fmt.Sprintf("/tmp/root-%d", i)
		h := fnv.New32a()
		h.Write([]byte(root))
		if slot := int(h.Sum32() % autoSlots); seen[slot] == "" {
			seen[slot] = root
		}
	}
	if len(seen) < autoSlots {
		t.Fatalf("found roots for %d slots of %d", len(seen), autoSlots)
	}
	for slot, root := range seen {
		first, count := autoRange(root)
		if want := autoFirst + slot*autoCount; first != want {
			t.Fatalf("slot %d (%s): first %d; want %d", slot, root, first, want)
		}
		if want := autoCount; slot < autoSlots-1 && count != want {
			t.Fatalf("slot %d: %d ids; want %d (a host's uids must not move)", slot, count, want)
		}
		if _, err := NewWorkerRange(first, count); err != nil {
			t.Fatalf("slot %d (%s): %v", slot, root, err)
		}
	}
}
