package btree

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// externValue is a test value with n references: its first byte says n,
// and its last 20n bytes are the references.
func externValue(r *rand.Rand, size, n int) []byte {
	v := make([]byte, size+n*page.ExternRefSize)
	v[0] = byte(n)
	for i := 1; i < len(v); i++ {
		v[i] = byte('a' + r.IntN(4))
	}
	return v
}

func externCount(v []byte) (int, error) {
	if len(v) == 0 || int(v[0])*page.ExternRefSize > len(v)-1 {
		return 0, errors.New("bad test value")
	}
	return int(v[0]), nil
}

// TestExternRefs stores values whose references change in number through
// inserts, same-size updates, splits and deletes, and checks that every
// record and zip image agrees with ExternRefs.
func TestExternRefs(t *testing.T) {
	for _, zip := range []int{0, 1024, 8192} {
		t.Run(zipName(zip), func(t *testing.T) {
			e := newEnv(t, zip, 2<<20)
			o := e.options(1, true)
			o.ExternRefs = externCount
			ix, err := Create(ctx, o)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 2))
			model := map[uint64][]byte{}
			const rows = 3000
			for i := range uint64(rows) {
				v := externValue(r, 20+r.IntN(60), r.IntN(3))
				require.NoError(t, ix.Insert(ctx, key8(i), v))
				model[i] = v
			}
			for i := uint64(0); i < rows; i += 3 {
				// Same size, other reference count: not an in-place update.
				old := model[i]
				n := (int(old[0]) + 1) % 3
				size := len(old) - n*page.ExternRefSize
				if size < 1 {
					continue
				}
				v := externValue(r, size, n)
				require.NoError(t, ix.Update(ctx, key8(i), v))
				model[i] = v
			}
			for i := uint64(1); i < rows; i += 5 {
				require.NoError(t, ix.Delete(ctx, key8(i)))
				delete(model, i)
			}
			requireCheck(t, ix)
			nExt := 0
			for k, v := range model {
				got, ok, err := ix.Get(ctx, key8(k), nil)
				require.NoError(t, err)
				require.True(t, ok)
				require.True(t, bytes.Equal(v, got), "key %d", k)
				nExt += int(v[0])
			}
			if zip != 0 {
				require.Equal(t, nExt, zipBlobs(t, ix), "BLOB pointers in the zip images")
			}
		})
	}
}

// TestExternRefsRejects checks that a value ExternRefs refuses is an
// error, not a record.
func TestExternRefsRejects(t *testing.T) {
	e := newEnv(t, 8192, 1<<20)
	o := e.options(1, true)
	o.ExternRefs = externCount
	ix, err := Create(ctx, o)
	require.NoError(t, err)
	require.ErrorContains(t, ix.Insert(ctx, key8(1), []byte{9, 1, 2}), "off-page references")
	o.Clustered = false
	_, err = Create(ctx, o)
	require.ErrorContains(t, err, "clustered")
}

// zipBlobs sums the BLOB pointers of the index's leaf zip images.
func zipBlobs(t *testing.T, ix *Index) int {
	n := 0
	require.NoError(t, ix.walk(ctx, false, func(level int, p page.IndexPage) error {
		if level != 0 {
			return nil
		}
		g, err := ix.fix(ctx, p.PageNo(), bufpool.Shared)
		if err != nil {
			return err
		}
		n += g.Zip().NBlobs()
		g.Release()
		return nil
	}))
	return n
}
