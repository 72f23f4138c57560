package page

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// sbRecord builds a sysbench sbtest row for a clustered leaf.
func sbRecord(r *rand.Rand, id uint32) Record {
	key, sys, value := sbdata.Row(r, id)
	return Record{Key: key, Value: value, Sys: sys}
}

// sbLeaf fills a clustered leaf of pageSize with sysbench rows in id order,
// as a sequential load does, and returns it with the number of rows.
func sbLeaf(t testing.TB, pageSize int, seed uint64) (IndexPage, int) {
	t.Helper()
	p, err := CreateIndex(make([]byte, pageSize), IndexOptions{PageNo: 3, SpaceID: 1, IndexID: 42, Clustered: true})
	require.NoError(t, err)
	r := sbdata.Rand(seed)
	n := 0
	for ; ; n++ {
		if _, err := p.Insert(n, sbRecord(r, uint32(n+1))); err != nil {
			require.ErrorIs(t, err, ErrNoSpace)
			break
		}
	}
	require.Empty(t, p.Check(bytes.Compare))
	return p, n
}

// requireSamePage compares two page images as Validate does: without the
// checksum field and the FIL trailer.
func requireSamePage(t testing.TB, want, got []byte) {
	t.Helper()
	end := len(want) - FilTrailerSize
	if i := mismatch(got[FilPageNo:end], want[FilPageNo:end]); i >= 0 {
		i += FilPageNo
		lo, hi := max(i-16, 0), min(i+16, len(want))
		t.Fatalf("pages differ at byte %d:\nwant %x\ngot  %x", i, want[lo:hi], got[lo:hi])
	}
}
