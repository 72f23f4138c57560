package compress

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatsConcurrentSums(t *testing.T) {
	s := NewStats()
	const goroutines, per = 16, 5000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				zip := ZipSizes[i%len(ZipSizes)]
				s.RecordCompress(zip, uint64(g%4), i%3 != 0, time.Microsecond)
				s.RecordUncompress(zip, uint64(g%4), 2*time.Microsecond)
			}
		}()
	}
	wg.Wait()
	snap := s.Snapshot()
	total := snap.Total()
	const n = goroutines * per
	okPer := uint64(0)
	for i := range per {
		if i%3 != 0 {
			okPer++
		}
	}
	assert.Equal(t, CMP{
		CompressOps:    n,
		CompressOpsOK:  okPer * goroutines,
		CompressTime:   n * time.Microsecond,
		UncompressOps:  n,
		UncompressTime: 2 * n * time.Microsecond,
	}, total)
	for k := range ZipSizes {
		assert.Equal(t, uint64(n/len(ZipSizes)), snap.BySize[k].CompressOps)
		assert.Equal(t, snap.BySize[k], snap.Size(ZipSizes[k]))
	}
	require.Len(t, snap.PerIndex, 4)
	var sum CMP
	for id, row := range snap.PerIndex {
		assert.Equal(t, uint64(n/4), row.CompressOps, id)
		sum = sum.Add(row)
	}
	assert.Equal(t, total, sum)
}

func TestStatsPerIndexAndOddSizes(t *testing.T) {
	s := NewStats()
	s.RecordCompress(8192, 7, true, time.Millisecond)
	s.RecordCompress(8192, 7, false, time.Millisecond)
	s.RecordCompress(3000, 9, false, time.Millisecond) // not a zip size
	s.RecordUncompress(4096, 9, -time.Second)          // clock stepped back
	snap := s.Snapshot()
	assert.Equal(t, CMP{CompressOps: 2, CompressOpsOK: 1, CompressTime: 2 * time.Millisecond}, snap.Size(8192))
	assert.Equal(t, CMP{UncompressOps: 1}, snap.Size(4096))
	assert.Equal(t, CMP{}, snap.Size(3000))
	assert.Equal(t, uint64(3), snap.Total().CompressOps+snap.Total().UncompressOps)
	assert.Equal(t, map[uint64]CMP{
		7: {CompressOps: 2, CompressOpsOK: 1, CompressTime: 2 * time.Millisecond},
		9: {CompressOps: 1, CompressTime: time.Millisecond, UncompressOps: 1},
	}, snap.PerIndex)
	assert.InDelta(t, 50.0, snap.PerIndex[7].FailurePct(), 1e-9)
	assert.InDelta(t, 100.0, snap.PerIndex[9].FailurePct(), 1e-9)
	assert.Zero(t, CMP{}.FailurePct())
}

func TestSnapshotSubAdd(t *testing.T) {
	s := NewStats()
	s.RecordCompress(16384, 1, true, time.Second)
	s.RecordCompress(1024, 2, true, time.Second)
	before := s.Snapshot()
	s.RecordCompress(16384, 1, false, 3*time.Second)
	s.RecordUncompress(2048, 3, time.Second)
	after := s.Snapshot()

	d := after.Sub(before)
	assert.Equal(t, CMP{CompressOps: 1, CompressTime: 3 * time.Second}, d.Size(16384))
	assert.Equal(t, CMP{}, d.Size(1024))
	assert.Equal(t, CMP{UncompressOps: 1, UncompressTime: time.Second}, d.Size(2048))
	assert.Equal(t, map[uint64]CMP{
		1: {CompressOps: 1, CompressTime: 3 * time.Second},
		3: {UncompressOps: 1, UncompressTime: time.Second},
	}, d.PerIndex, "index 2 was idle")
	assert.Equal(t, after, before.Add(d))
	assert.Equal(t, after, Snapshot{}.Add(after))

	// Wrong order does not wrap around.
	back := before.Sub(after)
	assert.Zero(t, back.Size(16384).CompressOps)

	two := after.Add(after)
	assert.Equal(t, 2*after.Total().CompressOps, two.Total().CompressOps)
	assert.Equal(t, 2*after.PerIndex[1].CompressOps, two.PerIndex[1].CompressOps)
}

func TestSnapshotString(t *testing.T) {
	empty := NewStats().Snapshot().String()
	for _, z := range ZipSizes {
		assert.Contains(t, empty, fmt.Sprintf("| %9d |", z), "all five sizes when idle")
	}

	s := NewStats()
	s.RecordCompress(8192, 42, true, 1500*time.Microsecond)
	s.RecordCompress(8192, 5, false, time.Microsecond)
	s.RecordUncompress(8192, 42, 250*time.Microsecond)
	out := s.Snapshot().String()
	t.Log("\n" + out)
	for _, want := range []string{
		"INNODB_CMP\n", "INNODB_CMP_PER_INDEX\n",
		"PAGE_SIZE", "COMPRESS_OPS", "COMPRESS_OPS_OK", "COMPRESS_TIME",
		"UNCOMPRESS_OPS", "UNCOMPRESS_TIME", "INDEX_ID",
		"0.001501", "0.000250",
	} {
		assert.Contains(t, out, want)
	}
	cmp, perIndex, _ := strings.Cut(out, "INNODB_CMP_PER_INDEX")
	assert.Contains(t, cmp, "8192")
	assert.NotContains(t, cmp, "16384", "idle sizes are left out")
	assert.Less(t, strings.Index(perIndex, "|        5 |"), strings.Index(perIndex, "|       42 |"), "sorted by id")
}

func TestNilStats(t *testing.T) {
	var s *Stats
	s.RecordCompress(8192, 1, true, time.Second)
	s.RecordUncompress(8192, 1, time.Second)
	snap := s.Snapshot()
	assert.Equal(t, CMP{}, snap.Total())
	assert.Empty(t, snap.PerIndex)
	assert.NotPanics(t, func() { _ = snap.String() })
}

func TestRecordZeroAllocs(t *testing.T) {
	s := NewStats()
	s.RecordCompress(8192, 1234567, true, time.Microsecond) // first use of the id
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		s.RecordCompress(8192, 1234567, false, time.Microsecond)
		s.RecordUncompress(16384, 1234567, time.Microsecond)
	}))
}

// While writers record, every snapshot shows at most as many successful
// compressions as attempts (INNODB_CMP's COMPRESS_OPS_OK <= COMPRESS_OPS).
func TestSnapshotNeverShowsMoreOKThanOps(t *testing.T) {
	s := NewStats()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					s.RecordCompress(8192, 1, true, time.Microsecond)
				}
			}
		}()
	}
	for i := 0; i < 2000; i++ {
		snap := s.Snapshot()
		for _, row := range append(snap.BySize[:], snap.PerIndex[1]) {
			require.LessOrEqual(t, row.CompressOpsOK, row.CompressOps)
			require.LessOrEqual(t, row.FailurePct(), 100.0)
		}
	}
	close(stop)
	wg.Wait()
}
