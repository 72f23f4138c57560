//go:build !race

// Allocation counts are meaningless under -race; CI runs these tests in a
// second, non-race pass (go test -run ZeroAllocs ./...), see README.md.

package latch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocs checks that locking never allocates, instrumented or not,
// including sampled acquisitions (AllocsPerRun's 128 runs cover two), and
// in InnoDB's implementations.
func TestZeroAllocs(t *testing.T) {
	for _, o := range []Options{{}, {Disabled: true}, {Impl: Builtin}, {Impl: Plugin}} {
		r := NewRegistry(o)
		var m Mutex
		var rw RWMutex
		m.Init(r, "m")
		rw.Init(r, "rw")
		ops := map[string]func(){
			"Mutex": func() {
				m.Lock()
				m.Unlock()
				if m.TryLock() {
					m.Unlock()
				}
			},
			"RWMutex": func() {
				rw.RLock()
				rw.RUnlock()
				rw.Lock()
				rw.Unlock()
				if rw.TryRLock() {
					rw.RUnlock()
				}
			},
		}
		for name, op := range ops {
			require.Zero(t, testing.AllocsPerRun(128, op), "%s %+v", name, o)
		}
	}
}
