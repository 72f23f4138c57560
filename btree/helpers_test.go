package btree

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/storage"
)

var ctx = context.Background()

// memAlloc is an Allocator over a counter and a free list.
type memAlloc struct {
	mu   sync.Mutex
	next uint32
	free []uint32
}

func (a *memAlloc) AllocPage() (uint32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.free); n > 0 {
		p := a.free[n-1]
		a.free = a.free[:n-1]
		return p, nil
	}
	a.next++
	return a.next, nil
}

func (a *memAlloc) FreePage(p uint32) {
	a.mu.Lock()
	a.free = append(a.free, p)
	a.mu.Unlock()
}

// testEnv is a pool with one space on a memory device.
type testEnv struct {
	pool  *bufpool.Pool
	alloc *memAlloc
	zip   int
}

func newEnv(t testing.TB, zip int, poolBytes int64) *testEnv {
	t.Helper()
	return newEnvPool(t, zip, bufpool.Options{Bytes: poolBytes})
}

// newEnvPool is newEnv with a pool built from po.
func newEnvPool(t testing.TB, zip int, po bufpool.Options) *testEnv {
	t.Helper()
	pool, err := bufpool.New(po)
	require.NoError(t, err)
	mem, err := storage.NewMemory(storage.MemoryOptions{})
	require.NoError(t, err)
	ts, err := storage.Create(mem, storage.Options{ZipSize: zip, SpaceID: 1})
	require.NoError(t, err)
	require.NoError(t, pool.AddSpace(1, ts, nil))
	return &testEnv{pool: pool, alloc: &memAlloc{}, zip: zip}
}

func (e *testEnv) options(id uint64, clustered bool) Options {
	return Options{Pool: e.pool, Space: 1, Alloc: e.alloc, ZipSize: e.zip, ID: id,
		Name: fmt.Sprintf("idx%d", id), Clustered: clustered}
}

func newIndexT(t testing.TB, zip int, poolBytes int64) (*testEnv, *Index) {
	t.Helper()
	e := newEnv(t, zip, poolBytes)
	ix, err := Create(ctx, e.options(1, true))
	require.NoError(t, err)
	return e, ix
}

// key8 is an 8-byte big-endian key.
func key8(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i) }

// sbRow returns a sysbench row's key and its non-key columns (k, c, pad).
func sbRow(r *rand.Rand, id uint32) (key, value []byte) {
	key, _, value = sbdata.Row(r, id)
	return key, value
}

// requireCheck fails the test with every violation Check finds.
func requireCheck(t testing.TB, ix *Index) {
	t.Helper()
	errs := ix.Check(ctx)
	for i, err := range errs {
		if i == 20 {
			t.Errorf("... %d more", len(errs)-20)
			break
		}
		t.Error(err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
}

// stepClock returns a clock that moves a microsecond at each reading, for
// tests whose outcome hangs on the pool's time-based rules
// (innodb_old_blocks_time, the eviction heuristic's one-second windows):
// with it they depend on the work done, not on how fast -race or a loaded
// machine runs it.
func stepClock() func() time.Time {
	var n atomic.Int64
	base := time.Unix(1_700_000_000, 0)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Microsecond) }
}
