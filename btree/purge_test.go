package btree

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// sysOf reads key's DB_TRX_ID and DB_ROLL_PTR from its leaf.
func sysOf(t *testing.T, ix *Index, key []byte) []byte {
	t.Helper()
	g, err := ix.descend(ctx, key, bufpool.Shared)
	require.NoError(t, err)
	defer g.Release()
	p := page.IndexPage(g.Frame())
	slot, found := p.Search(key, bytes.Compare)
	require.True(t, found)
	return bytes.Clone(p.Sys(slot))
}

func sysFor(trx byte) []byte {
	s := make([]byte, page.TrxRollLen)
	s[5], s[12] = trx, trx
	return s
}

// TestResetSys writes records with DB_TRX_ID/DB_ROLL_PTR, resets some as
// purge does, and reads them back after the pool lost every page, so that
// the compressed copy is what is checked on a zip index.
func TestResetSys(t *testing.T) {
	for _, zip := range []int{0, 8192} {
		e, ix := newIndexT(t, zip, 4<<20)
		const n = 2000
		for i := range uint64(n) {
			k, v := key8(i), bytes.Repeat([]byte{byte(i)}, 60)
			require.NoError(t, ix.InsertSys(ctx, k, v, sysFor(1)))
		}
		// A later write's stamp hides the earlier one from purge.
		for i := uint64(0); i < n; i += 3 {
			require.NoError(t, ix.UpdateSys(ctx, key8(i), bytes.Repeat([]byte{byte(i)}, 60), sysFor(2)))
		}
		require.NoError(t, ix.Delete(ctx, key8(1)))
		// Purge finds the pages written and gone, as it mostly does.
		require.NoError(t, e.pool.Flush())
		e.pool.EvictAll()
		before := ix.Stats().SysResets
		resets := 0
		for i := range uint64(n) {
			ok, err := ix.ResetSys(ctx, key8(i), sysFor(1))
			require.NoError(t, err)
			if ok {
				resets++
			}
			require.Equal(t, i%3 != 0 && i != 1, ok, "zip %d key %d", zip, i)
		}
		require.Equal(t, uint64(resets), ix.Stats().SysResets-before)
		requireCheck(t, ix)
		require.NoError(t, e.pool.Flush())
		e.pool.EvictAll()
		for _, i := range []uint64{0, 2, 3, 4, n - 1} {
			want := ResetSysFields[:]
			if i%3 == 0 {
				want = sysFor(2)
			}
			require.Equal(t, want, sysOf(t, ix, key8(i)), "zip %d key %d", zip, i)
		}
		requireCheck(t, ix)
	}
}

// TestSysRefused: only a clustered index has DB_TRX_ID and DB_ROLL_PTR,
// and they are page.TrxRollLen bytes.
func TestSysRefused(t *testing.T) {
	e, ix := newIndexT(t, 0, 1<<20)
	require.Error(t, ix.InsertSys(ctx, key8(1), []byte("v"), []byte{1, 2}))
	_, err := ix.ResetSys(ctx, key8(1), []byte{1})
	require.Error(t, err)
	sec, err := Create(ctx, e.options(2, false))
	require.NoError(t, err)
	require.Error(t, sec.InsertSys(ctx, key8(1), nil, sysFor(1)))
	_, err = sec.ResetSys(ctx, key8(1), sysFor(1))
	require.Error(t, err)
}
