package bufpool

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatsSubAndTables checks a snapshot difference against what a known
// sequence of fixes must have done, and the tables String prints.
func TestStatsSubAndTables(t *testing.T) {
	p := newPool(t, Options{Bytes: 32 * 16384})
	testSpace(t, p, 1, 8192)
	const n = 100 // 100 8K blocks are 50 frames: more than the pool holds
	createStamped(t, p, 1, n)
	before := p.Stats()
	require.Equal(t, uint64(n), before.Creates)
	for i := 1; i <= n; i++ {
		g, err := p.Fix(ctx, PageID{1, uint32(i)}, Shared)
		require.NoError(t, err)
		g.Release()
	}
	d := p.Stats().Sub(before)
	require.Equal(t, uint64(n), d.Gets)
	require.Equal(t, d.Gets, d.HitsFrame+d.HitsUnzip+d.Reads)
	require.Positive(t, d.Reads, "the oldest pages were evicted")
	require.Zero(t, d.Creates)
	require.Positive(t, d.EvictFrame+d.EvictPage)
	require.Positive(t, d.Scans)
	require.GreaterOrEqual(t, d.Scanned, d.Scans)
	require.Equal(t, 32, d.Frames)
	require.Equal(t, d.LRULen, d.Pages)
	require.LessOrEqual(t, d.UnzipLen, d.Pages-d.ZipOnly)

	// Every page in the pool owns one 8K block; each frame is free, holds
	// a page, or was carved into two 8K blocks, used or free.
	var used8, free8 uint64
	for _, r := range d.CMPMEM {
		if r.PageSize == 8192 {
			used8 += r.Used
			free8 += r.Free
		}
	}
	require.Equal(t, uint64(d.Pages), used8)
	require.Equal(t, d.Frames, d.FreeLen+d.Pages-d.ZipOnly+int(used8+free8)/2)

	lru, ok := d.Latches.Get("LRU_list_mutex")
	require.True(t, ok)
	require.Positive(t, lru.Acquisitions)

	out := d.String()
	for _, name := range []string{"INNODB_BUFFER_POOL_STATS", "INNODB_CMPMEM", "INNODB_CMP", "LOCKS", "LRU_list_mutex", "zip_mutex"} {
		require.Contains(t, out, name)
	}
	require.Regexp(t, regexp.MustCompile(`POOL_SIZE_PAGES \|\s+32 \|`), out)
	require.Regexp(t, regexp.MustCompile(`PAGE_GETS \|\s+100 \|`), out)
}
