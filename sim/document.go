package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/internal/docgen"
)

// The "document" workload (research/targets.md §2.5): seed 001's table
// document_queries, HTML documents loaded in id order, then lookups.
//
//	document_queries (id INT PRIMARY KEY, word_document_id INT, html MEDIUMTEXT,
//	                  created_at DATETIME, updated_at DATETIME, query_count INT,
//	                  short_html TEXT, KEY word_document_id (word_document_id))
//
// DATETIMEs are 8-byte integers (Unix seconds). The Config's row format,
// KEY_BLOCK_SIZE, codec and partitions (by primary key) apply to the
// table.
//
// Load inserts ids 1..Docs in order from one goroutine, whatever the
// loaders: html and short_html come from internal/docgen seeded by the
// Config's seed (lognormal lengths, medians 64 KiB and 2 KiB, sigma 0.5;
// Document.SmallDocs is the share of html drawn around 2 KiB instead),
// word_document_id is uniform over [1, Docs/10] (at least 1),
// created_at falls in 2010 and updated_at within 30 days after it, and
// query_count is 0. Progress is reported per 64 documents.
//
// Requests: half are pk_lookup, a Get of a uniform id in [1, Docs], the
// other half secondary_lookup, a ScanIndex of word_document_id on a
// uniform value in [1, Docs/10] that fetches each matching row from the
// clustered index (≈10 rows). Rows are read whole, html included.
type document struct {
	c      Config
	docs   int64
	groups int64 // word_document_id values: 1..groups
}

const (
	documentTable     = "document_queries"
	documentIndex     = "word_document_id"
	documentBatch     = 64
	documentEpoch     = 1262304000 // 2010-01-01 UTC
	documentYear      = 365 * 24 * 3600
	documentMonth     = 30 * 24 * 3600
	saltDocData       = 0x646f6364617461
	saltDocRows       = 0x646f63726f7773
	saltDocWorker     = 0x646f63776f726b
	documentPKLookup  = 0
	documentSecLookup = 1
)

func newDocument(c Config) (Workload, error) {
	d, err := newDocumentWorkload(c)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func newDocumentWorkload(c Config) (*document, error) {
	d, err := c.Document.validate()
	if err != nil {
		return nil, err
	}
	if d.Docs > math.MaxInt32 {
		return nil, fmt.Errorf("document: docs %d: use at most %d", d.Docs, math.MaxInt32)
	}
	// Check the docgen options now rather than at Load.
	if _, err := docgen.New(c.Seed, docgen.Options{SmallDocs: d.SmallDocs}); err != nil {
		return nil, fmt.Errorf("document: %w", err)
	}
	c.Document = d
	return &document{c: c, docs: int64(d.Docs), groups: max(int64(d.Docs)/10, 1)}, nil
}

func (d *document) Name() string { return "document" }

func (d *document) Ops() []string { return []string{"pk_lookup", "secondary_lookup"} }

func (d *document) options() zipsim.TableOptions {
	o := DocumentTable()
	d.c.apply(&o)
	return o
}

// DocumentTable is seed 001's document_queries (research/targets.md §2.5),
// DYNAMIC; DATETIMEs are 8-byte integers.
func DocumentTable() zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt, Len: 4},
			{Name: "word_document_id", Type: zipsim.TypeInt, Len: 4},
			{Name: "html", Type: zipsim.TypeVarchar, Len: zipsim.MaxVarcharLen},
			{Name: "created_at", Type: zipsim.TypeInt},
			{Name: "updated_at", Type: zipsim.TypeInt},
			{Name: "query_count", Type: zipsim.TypeInt, Len: 4},
			{Name: "short_html", Type: zipsim.TypeVarchar, Len: 65535},
		},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: documentIndex, Columns: []string{"word_document_id"}}},
	}
}

func (d *document) Create(ctx context.Context, st *zipsim.Store) error {
	if _, err := st.CreateTable(ctx, documentTable, d.options()); err != nil {
		return fmt.Errorf("document: %w", err)
	}
	return nil
}

func documentTableOf(st *zipsim.Store) (*zipsim.Table, error) {
	t := st.Table(documentTable)
	if t == nil {
		return nil, errors.New("document: the store lacks document_queries: run Create first")
	}
	return t, nil
}

func (d *document) Load(ctx context.Context, st *zipsim.Store, progress func(rows int64)) error {
	t, err := documentTableOf(st)
	if err != nil {
		return err
	}
	g, err := docgen.New(d.c.Seed^saltDocData, docgen.Options{SmallDocs: d.c.Document.SmallDocs})
	if err != nil {
		return fmt.Errorf("document: %w", err)
	}
	r := rand.New(rand.NewPCG(d.c.Seed^saltDocRows, 0))
	var (
		row      zipsim.Row
		html, sh []byte
		pending  int64
		server   = newServerCPU(0, d.c.LoadRowCPU)
	)
	for id := int64(1); id <= d.docs; id++ {
		html = g.Text(html[:0], g.HTMLLen())
		sh = g.Text(sh[:0], g.ShortLen())
		created := documentEpoch + r.Int64N(documentYear)
		row = append(row[:0], zipsim.Int(id), zipsim.Int(1+r.Int64N(d.groups)), zipsim.Bytes(html),
			zipsim.Int(created), zipsim.Int(created+r.Int64N(documentMonth)), zipsim.Int(0), zipsim.Bytes(sh))
		if err := upsert(ctx, t, row); err != nil {
			return fmt.Errorf("document: load: %w", err)
		}
		server.spendRows(1)
		if pending++; pending == documentBatch {
			if progress != nil {
				progress(pending)
			}
			pending = 0
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("document: load: %w", err)
			}
		}
	}
	if pending > 0 && progress != nil {
		progress(pending)
	}
	return nil
}

func (d *document) LoadRows() int64 { return d.docs }

// DataBytes estimates the documents' bytes: lognormal means are the
// median times e^(σ²/2), ≈1.133 for σ = 0.5, plus ≈40 bytes of other
// columns and record overhead.
func (d *document) DataBytes() int64 {
	const spread = 1.1331484530668263 // e^(0.5²/2)
	s := d.c.Document.SmallDocs
	html := spread * ((1-s)*docgen.DefaultHTMLMedian + s*docgen.DefaultSmallMedian)
	short := spread * docgen.DefaultShortMedian
	return int64(float64(d.docs) * (html + short + 40))
}

func (d *document) Worker(st *zipsim.Store, id int) (Worker, error) {
	w, err := d.worker(st, id)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func (d *document) worker(st *zipsim.Store, id int) (*documentWorker, error) {
	t, err := documentTableOf(st)
	if err != nil {
		return nil, err
	}
	return &documentWorker{d: d, t: t, r: rand.New(rand.NewPCG(d.c.Seed^saltDocWorker, uint64(id)))}, nil
}

// documentWorker runs the lookups of one goroutine.
type documentWorker struct {
	d        *document
	t        *zipsim.Table
	r        *rand.Rand
	row      zipsim.Row
	from, to [1]zipsim.Value
	rows     int64 // rows the lookups returned, for tests
}

// chooseDocumentOp draws pk_lookup or secondary_lookup, half each.
func chooseDocumentOp(r *rand.Rand) int { return int(r.Uint64() >> 63) }

func (w *documentWorker) Next(ctx context.Context, rec Recorder) error {
	op := chooseDocumentOp(w.r)
	start := time.Now()
	var err error
	if op == documentPKLookup {
		var found bool
		w.row, found, err = w.t.Get(ctx, w.row, zipsim.Int(1+w.r.Int64N(w.d.docs)))
		if found {
			w.rows++
		}
	} else {
		w.from[0] = zipsim.Int(1 + w.r.Int64N(w.d.groups))
		w.to[0] = zipsim.Int(w.from[0].Int() + 1)
		before := w.rows
		err = w.t.ScanIndex(ctx, documentIndex, w.from[:], w.to[:], false, func(zipsim.Row) bool {
			w.rows++
			return true
		})
		if err == nil {
			rec.Rows(int(w.rows - before))
		}
	}
	if err != nil {
		return fmt.Errorf("document: %s: %w", w.d.Ops()[op], err)
	}
	rec.Op(op, time.Since(start).Nanoseconds())
	return nil
}
