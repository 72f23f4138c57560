package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

func docTestConfig(t testing.TB, seed uint64, docs int, small float64) Config {
	t.Helper()
	c, err := Config{Workload: "document", Seed: seed, PoolBytes: 64 << 20,
		Document: DocumentConfig{Docs: docs, SmallDocs: small}}.Validate()
	require.NoError(t, err)
	return c
}

func TestDocumentWorkload(t *testing.T) {
	const docs, events = 100, 500
	c := docTestConfig(t, 3, docs, 0.2)
	d, err := newDocumentWorkload(c)
	require.NoError(t, err)
	require.Equal(t, []string{"pk_lookup", "secondary_lookup"}, d.Ops())
	st := wlOpenStore(t, c, d)
	el := wlLoad(t, st, d)

	tb := st.Table(documentTable)
	var n, small int64
	var htmlBytes int64
	groups := map[int64]int{}
	require.NoError(t, tb.Scan(wlCtx, nil, nil, false, func(row zipsim.Row) bool {
		n++
		require.Equal(t, n, row[0].Int(), "ids 1..docs in order")
		wd := row[1].Int()
		require.GreaterOrEqual(t, wd, int64(1))
		require.LessOrEqual(t, wd, int64(docs/10))
		groups[wd]++
		html := len(row[2].Bytes())
		htmlBytes += int64(html)
		if html < 8<<10 {
			small++
		}
		require.Positive(t, len(row[6].Bytes()))
		require.LessOrEqual(t, row[3].Int(), row[4].Int(), "updated after created")
		return true
	}))
	require.Equal(t, int64(docs), n)
	u, err := tb.Space(wlCtx)
	require.NoError(t, err)
	t.Logf("loaded %d documents (%d small, %d KiB of html, %d word_document_ids) in %v; DataBytes estimate %d KiB; table %d KiB, %d off-page values",
		n, small, htmlBytes>>10, len(groups), el.Round(time.Millisecond), d.DataBytes()>>10, u.TotalBytes()>>10, u.BlobValues)
	require.InDelta(t, 20, small, 12, "SmallDocs 0.2")
	wlRequireClean(t, st)

	wk, err := d.worker(st, 0)
	require.NoError(t, err)
	rec := newWLRecorder(2)
	start := time.Now()
	for range events {
		require.NoError(t, wk.Next(wlCtx, rec))
	}
	el = time.Since(start)
	t.Logf("%d lookups in %v: pk_lookup %d (mean %v), secondary_lookup %d (mean %v), %d rows read",
		events, el.Round(time.Millisecond), rec.n[0], time.Duration(rec.ns[0]/max(rec.n[0], 1)),
		rec.n[1], time.Duration(rec.ns[1]/max(rec.n[1], 1)), wk.rows)
	require.Equal(t, int64(events), rec.n[0]+rec.n[1])
	require.InDelta(t, events/2, rec.n[0], 60)
	// Every pk_lookup finds its row; a secondary lookup finds ≈10.
	require.Greater(t, wk.rows, rec.n[0]+5*rec.n[1])
	require.Equal(t, wk.rows-rec.n[0], rec.rows, "secondary lookups report the rows they read")
	wlRequireClean(t, st)
}

func TestDocumentDeterminism(t *testing.T) {
	run := func(seed uint64) (uint64, []int) {
		c := docTestConfig(t, seed, 40, 0.5)
		d, err := newDocumentWorkload(c)
		require.NoError(t, err)
		st := wlOpenStore(t, c, d)
		wlLoad(t, st, d)
		wk, err := d.worker(st, 2)
		require.NoError(t, err)
		rec := newWLRecorder(2)
		for range 1000 {
			require.NoError(t, wk.Next(wlCtx, rec))
		}
		return wlHashTables(t, st), rec.seq
	}
	h1, s1 := run(9)
	h2, s2 := run(9)
	h3, s3 := run(10)
	require.Equal(t, h1, h2, "same seed: same documents")
	require.Equal(t, s1, s2, "same seed: same first 1,000 operations")
	require.NotEqual(t, h1, h3)
	require.NotEqual(t, s1, s3)
}

func TestDocumentMix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const draws = 200_000
	var pk int
	for range draws {
		if chooseDocumentOp(r) == documentPKLookup {
			pk++
		}
	}
	t.Logf("pk_lookup %.2f%%", 100*float64(pk)/draws)
	require.InDelta(t, 50, 100*float64(pk)/draws, 1)
}

func TestDocumentNew(t *testing.T) {
	w, err := New(docTestConfig(t, 1, 10, 0))
	require.NoError(t, err)
	require.Equal(t, "document", w.Name())
	require.Equal(t, int64(10), w.LoadRows())
	c := docTestConfig(t, 1, 10, 0)
	c.Document.SmallDocs = 2
	w, err = New(c)
	require.Error(t, err)
	require.Nil(t, w)
}
