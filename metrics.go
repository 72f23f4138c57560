package zipsim

import (
	"strconv"
	"strings"
	"time"

	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/table"
	"github.com/zipsim/zipsim/storage"
)

// Metrics is a value snapshot of a store: buffer pool, compression, locks,
// B-trees and space. Sub gives the activity between two snapshots and
// String prints tables named like InnoDB's.
type Metrics struct {
	At time.Time
	// Pool is the buffer pool's snapshot: INNODB_BUFFER_POOL_STATS and
	// INNODB_CMPMEM, and, because every index records into the pool's
	// counters and lock registry, the store's INNODB_CMP and
	// INNODB_CMP_PER_INDEX (Pool.CMP) and every lock of the pool, the
	// indexes, the row locks and the allocators (Pool.Latches).
	Pool bufpool.Stats
	// Indexes has one entry per index per partition, by table and
	// partition, PRIMARY first.
	Indexes []IndexMetrics
	// Spaces has one entry per tablespace, in the same order.
	Spaces []SpaceMetrics
	// AdaptiveHash is the adaptive hash index's snapshot, zero (Cells 0)
	// when Options.AdaptiveHashIndex is off.
	AdaptiveHash btree.AdaptiveHashStats
	// ChangeBuffer is the change buffer's snapshot, zero (MaxBytes 0)
	// when Options.ChangeBuffering is off.
	ChangeBuffer btree.ChangeBufferStats
	// Purge is purge's snapshot, zero (Threads 0) when Options.Purge is
	// off.
	Purge PurgeStats
	// Gate is the concurrency gate's snapshot, zero (Limit 0) when
	// Options.ThreadConcurrency is off.
	Gate GateStats
}

// IndexMetrics describes one index tree (INNODB_INDEXES) with its
// B-tree counters.
type IndexMetrics struct {
	Table   string // the table's name
	Space   string // the tablespace's name: the table's, or table#p#pN
	Index   string // PRIMARY or the secondary index's name
	ID      uint64 // the index id, INNODB_CMP_PER_INDEX's key
	SpaceID uint32
	Root    uint32 // the root page number
	BTree   btree.Stats
}

// SpaceMetrics describes one tablespace (INNODB_TABLESPACES) with its I/O.
type SpaceMetrics struct {
	Table       string
	Name        string // the table's name, or table#p#pN
	SpaceID     uint32
	RowFormat   RowFormat
	PageSize    int
	ZipSize     int    // KEY_BLOCK_SIZE in bytes, 0 when uncompressed
	Compression string // transparent page compression, "" when off
	FreePages   int    // pages on the allocator's free list
	Usage       storage.Usage
	IO          storage.IOStats
}

// Metrics takes a snapshot. It reads the pool's lists and every index's
// counters briefly; it belongs between measurement intervals, not on a
// hot path.
func (s *Store) Metrics() Metrics {
	m := Metrics{At: time.Now(), Pool: s.pool.Stats()}
	if s.ahi != nil {
		m.AdaptiveHash = s.ahi.Stats()
	}
	if s.cb != nil {
		m.ChangeBuffer = s.cb.Stats()
	}
	if s.purge != nil {
		m.Purge = s.purge.stats()
	}
	if s.gate != nil {
		m.Gate = s.gate.stats()
	}
	for _, t := range s.Tables() {
		for _, p := range t.parts {
			_, free := p.alloc.state()
			m.Spaces = append(m.Spaces, SpaceMetrics{
				Table: t.name, Name: p.name, SpaceID: p.space, RowFormat: t.opts.RowFormat,
				PageSize: s.pool.Options().PageSize, ZipSize: t.sch.zipSize, Compression: t.opts.Compression,
				FreePages: len(free), Usage: p.ts.Usage(), IO: p.ts.Stats(),
			})
			for j, ix := range p.indexes {
				m.Indexes = append(m.Indexes, IndexMetrics{
					Table: t.name, Space: p.name, Index: t.sch.indexes[j].name,
					ID: ix.Options().ID, SpaceID: p.space, Root: ix.Root(), BTree: ix.Stats(),
				})
			}
		}
	}
	return m
}

// Sub returns the activity since prev: counters are differences, sizes
// and shapes are m's. Indexes and spaces missing from prev count from
// zero.
func (m Metrics) Sub(prev Metrics) Metrics {
	d := m
	d.Pool = m.Pool.Sub(prev.Pool)
	d.AdaptiveHash = m.AdaptiveHash.Sub(prev.AdaptiveHash)
	d.ChangeBuffer = m.ChangeBuffer.Sub(prev.ChangeBuffer)
	d.Purge = m.Purge.Sub(prev.Purge)
	d.Gate = m.Gate.Sub(prev.Gate)
	d.Indexes = make([]IndexMetrics, len(m.Indexes))
	for i, x := range m.Indexes {
		for _, px := range prev.Indexes {
			if px.ID == x.ID {
				x.BTree = x.BTree.Sub(px.BTree)
				break
			}
		}
		d.Indexes[i] = x
	}
	d.Spaces = make([]SpaceMetrics, len(m.Spaces))
	for i, sp := range m.Spaces {
		for _, ps := range prev.Spaces {
			if ps.SpaceID == sp.SpaceID {
				sp.IO = sp.IO.Sub(ps.IO)
				break
			}
		}
		d.Spaces[i] = sp
	}
	return d
}

// String prints INNODB_TABLESPACES, FILE_SUMMARY_BY_INSTANCE (the I/O per
// file, as performance_schema names it), INNODB_INDEXES (which maps the
// index ids of INNODB_CMP_PER_INDEX to names), BTREE, ADAPTIVE_HASH_INDEX,
// CHANGE_BUFFER, PURGE and CONCURRENCY when they are on, and the pool's
// INNODB_BUFFER_POOL_STATS, INNODB_CMPMEM, INNODB_CMP,
// INNODB_CMP_PER_INDEX and LOCKS.
func (m Metrics) String() string {
	var b strings.Builder
	i := strconv.Itoa
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	var spaces, io [][]string
	for _, s := range m.Spaces {
		spaces = append(spaces, []string{u(uint64(s.SpaceID)), s.Name, s.RowFormat.String(), i(s.PageSize), i(s.ZipSize),
			s.Compression, i64(s.Usage.Pages), i(s.FreePages), i64(s.Usage.LogicalBytes), i64(s.Usage.ApparentBytes),
			i64(s.Usage.AllocatedBytes), i64(s.Usage.Holes)})
		io = append(io, []string{s.Name + ".ibd", u(s.IO.Reads), u(s.IO.Writes), u(s.IO.BytesRead), u(s.IO.BytesWritten),
			u(s.IO.Syncs), u(s.IO.PagesCompressed), u(s.IO.PagesNoSaving)})
	}
	table.Write(&b, "INNODB_TABLESPACES", []string{"SPACE", "NAME", "ROW_FORMAT", "PAGE_SIZE", "ZIP_PAGE_SIZE",
		"COMPRESSION", "PAGES", "FREE_PAGES", "LOGICAL_SIZE", "FILE_SIZE", "ALLOCATED_SIZE", "PUNCHED_PAGES"}, spaces)
	b.WriteByte('\n')
	table.Write(&b, "FILE_SUMMARY_BY_INSTANCE", []string{"FILE_NAME", "COUNT_READ", "COUNT_WRITE", "BYTES_READ",
		"BYTES_WRITTEN", "COUNT_SYNC", "PAGES_COMPRESSED", "PAGES_NO_SAVING"}, io)
	b.WriteByte('\n')
	var idx [][]string
	stats := make([]btree.Stats, 0, len(m.Indexes))
	for _, x := range m.Indexes {
		idx = append(idx, []string{u(x.ID), x.Index, x.Space, u(uint64(x.SpaceID)), u(uint64(x.Root))})
		stats = append(stats, x.BTree)
	}
	table.Write(&b, "INNODB_INDEXES", []string{"INDEX_ID", "NAME", "TABLE_NAME", "SPACE", "PAGE_NO"}, idx)
	b.WriteByte('\n')
	b.WriteString(btree.Table(stats))
	b.WriteByte('\n')
	if m.AdaptiveHash.Cells > 0 {
		b.WriteString(m.AdaptiveHash.String())
		b.WriteByte('\n')
	}
	if m.ChangeBuffer.MaxBytes > 0 {
		b.WriteString(m.ChangeBuffer.String())
		b.WriteByte('\n')
	}
	if m.Purge.Threads > 0 {
		b.WriteString(m.Purge.String())
		b.WriteByte('\n')
	}
	if m.Gate.Limit > 0 {
		b.WriteString(m.Gate.String())
		b.WriteByte('\n')
	}
	b.WriteString(m.Pool.String())
	return b.String()
}
