package latch_test

import (
	"fmt"

	"github.com/zipsim/zipsim/internal/latch"
)

// Two pool instances, each with its own LRU mutex, and the page latches of
// all frames in one class.
func ExampleRegistry() {
	r := latch.NewRegistry(latch.Options{})
	var lru [2]latch.Mutex
	for i := range lru {
		lru[i].Init(r, fmt.Sprintf("LRU_list_mutex#%d", i))
	}
	frames := make([]latch.RWMutex, 1024)
	for i := range frames {
		frames[i].Init(r, "block_lock")
	}

	before := r.Snapshot()
	for i := range 100 {
		lru[i%2].Lock()
		lru[i%2].Unlock()
		frames[i].RLock()
		frames[i].RUnlock()
	}
	d := r.Snapshot().Sub(before)
	for _, row := range d.Rows {
		fmt.Printf("%-16s locks=%-4d x=%-3d s=%-3d contended=%.0f%%\n",
			row.Name, row.Locks, row.Acquisitions, row.ReadAcquisitions, row.ContentionPct())
	}
	// Output:
	// LRU_list_mutex   locks=2    x=100 s=0   contended=0%
	// LRU_list_mutex#0 locks=1    x=50  s=0   contended=0%
	// LRU_list_mutex#1 locks=1    x=50  s=0   contended=0%
	// block_lock       locks=1024 x=0   s=100 contended=0%
}
