package btree

import (
	"errors"
	"fmt"

	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/page"
)

// Allocator hands out and takes back page numbers of one tablespace
// [fsp0fsp.cc: fseg_alloc_free_page, fseg_free_page]. Every index of a
// space shares it; it must be safe for concurrent use.
type Allocator interface {
	// AllocPage returns a page number no index of the space uses.
	AllocPage() (uint32, error)
	// FreePage gives back a page the index no longer uses.
	FreePage(pageNo uint32)
}

// Padding configures adaptive padding [dict0dict.cc: dict_index_zip_pad_update].
// The zero value is InnoDB's default: a 5% failure threshold and a pad of at
// most 50% of the page.
type Padding struct {
	// Disabled turns padding off, as innodb_compression_failure_threshold_pct=0
	// does: the optimal page size is then the whole page.
	Disabled bool
	// ThresholdPct is innodb_compression_failure_threshold_pct, 1..100;
	// 0 means 5. A round of 128 leaf compressions whose failure share is
	// above it grows the pad by 128 bytes.
	ThresholdPct int
	// MaxPct is innodb_compression_pad_pct_max, 1..75; 0 means 50.
	MaxPct int
}

// Options describe an index. The zero value is not usable: Pool, Alloc and
// Space must be set.
type Options struct {
	Pool  *bufpool.Pool
	Space uint32 // the pool's space id (bufpool.Pool.AddSpace)
	Alloc Allocator
	// ZipSize is the space's KEY_BLOCK_SIZE in bytes, 0 for an uncompressed
	// table. It must match the tablespace the pool reads.
	ZipSize int
	// Codec compresses the index's pages; nil means zlib:6. Give the codec
	// the space was added to the pool with.
	Codec *compress.Codec
	// ID is the index id written into every page and used for
	// CMP_PER_INDEX. It must not be 0.
	ID uint64
	// Name labels the index lock ("index_lock#" + Name) and reports.
	Name string
	// Clustered makes leaf records carry DB_TRX_ID and DB_ROLL_PTR.
	Clustered bool
	// Fields is the number of fields of a leaf record, system columns
	// included (dict_index_t::n_fields), used by page_zip_empty_size. 0
	// means 4 for a clustered index (key, trx id, roll ptr, value) and 2
	// for a secondary one.
	Fields int
	// MaxKeyLen, when set, lets Create refuse an index whose longest key
	// cannot give two node pointers on an empty compressed page (InnoDB's
	// "KEY_BLOCK_SIZE too small" at CREATE TABLE).
	MaxKeyLen int
	// Padding configures adaptive padding of compressed leaves.
	Padding Padding
	// LogCompressedPages is innodb_log_compressed_pages as MySQL 5.6 and
	// 5.7 have it ON by default: an insert that finds the modification log
	// full goes into the frame alone and the page is recompressed after.
	// Off (the zero value: MariaDB 10.3+, MySQL up to 5.5, and 5.6/5.7 with
	// the option OFF, as Facebook ran them), a page whose log holds
	// anything is first reorganized and recompressed as it stands
	// (page_zip_reorganize), and the insert logged if the log then has
	// room: about one more compression per log fill, which MariaDB's
	// INNODB_CMP shows (BENCHMARKS.md, calibration).
	LogCompressedPages bool
	// CompressedLeafReserve keeps the update reserve of clustered leaves
	// (1/16 page free when inserts run in order) on compressed leaves
	// too, as InnoDB did up to 5.6.10; MySQL Bug #69140's fix (5.6.11)
	// exempted compressed pages, which the zero value follows.
	CompressedLeafReserve bool
	// NoSiblingInsert splits a full leaf whenever a record does not fit
	// it, as InnoDB did up to 5.6. The zero value follows MySQL 5.7 and
	// MariaDB 10.2+, whose btr_page_split_and_insert first offers a record
	// that belongs at the end of a full leaf to the start of the next leaf
	// (btr_insert_into_right_sibling) and splits only when that leaf
	// cannot take it either; zipsim offers it only to a next leaf under
	// the same parent (doc.go).
	NoSiblingInsert bool
	// SXIndexLock runs the index lock as MySQL 5.7 and MariaDB 10.2+ do:
	// a structure change takes it SX, which lets searches and optimistic
	// writes go on, and latches the pages it may change top-down in
	// advance (treelatch.go). The zero value is 5.6's: a structure change
	// takes the lock exclusively, waiting for every search in the tree to
	// leave it and keeping new ones out until it ends.
	SXIndexLock bool
	// MergeThresholdPct is MERGE_THRESHOLD: a page whose data falls below
	// this share of the page after a delete is merged with a sibling.
	// 1..50; 0 means 50.
	MergeThresholdPct int
	// ExternRefs returns how many 20-byte references to off-page columns
	// end a clustered leaf value [rec_offs_n_extern]; the page keeps them
	// in the zip image's uncompressed BLOB pointer area. nil means values
	// never hold any. An error marks the value as malformed.
	ExternRefs func(value []byte) (int, error)
	// AdaptiveHash, when set, lets Get and View answer point reads from
	// this adaptive hash index (innodb_adaptive_hash_index=ON); nil is
	// OFF, MariaDB 10.5+'s and MySQL 8.4's default. Indexes sharing one
	// must have different ID and Space pairs.
	AdaptiveHash *AdaptiveHash
	// ChangeBuffer, when set, buffers inserts and deletes on leaves that
	// are not in the pool (innodb_change_buffering=all); nil is none,
	// MySQL 8.4's and MariaDB 10.5+'s default. Only secondary indexes may
	// have one, and their callers must know, as zipsim's tables do, that a
	// key inserted is not there and a key deleted is: the buffer checks
	// neither until it merges (ChangeBuffer).
	ChangeBuffer *ChangeBuffer
	// FillFactor is innodb_fill_factor for BulkLoad on uncompressed
	// indexes, 10..100; 0 means 100, which keeps 1/16 of clustered leaves
	// free as 5.6 did. Compressed pages are filled up to the pad instead.
	FillFactor int
}

// Errors. An index returns ErrDuplicate and ErrNotFound wrapped with its
// name and not the key, which the caller has: an insert-or-update that
// finds its key (LinkBench's addlink) then costs no allocation.
var (
	ErrDuplicate = errors.New("btree: duplicate key")
	ErrNotFound  = errors.New("btree: key not found")
	// ErrTooBig is DB_TOO_BIG_RECORD: the record cannot fit an empty page of
	// the index (off-page columns would be needed), or its key cannot give
	// two node pointers on an empty compressed page.
	ErrTooBig = errors.New("btree: record too big")
	// ErrNotEmpty is returned by BulkLoad on an index that has rows.
	ErrNotEmpty = errors.New("btree: bulk load needs an empty index")
	// ErrUnsorted is returned by BulkLoad when keys do not ascend strictly.
	ErrUnsorted = errors.New("btree: bulk load keys must ascend strictly")
)

// withDefaults validates o and fills in its defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Pool == nil {
		return o, errors.New("btree: Options.Pool is nil")
	}
	if o.Alloc == nil {
		return o, errors.New("btree: Options.Alloc is nil")
	}
	if o.ID == 0 {
		return o, errors.New("btree: Options.ID must not be 0")
	}
	ps := o.Pool.Options().PageSize
	if o.ZipSize != 0 {
		if err := page.CheckZipSize(ps, o.ZipSize); err != nil {
			return o, fmt.Errorf("btree: Options.ZipSize: %w", err)
		}
	}
	if o.ChangeBuffer != nil && o.Clustered {
		return o, errors.New("btree: Options.ChangeBuffer is set on a clustered index: only secondary indexes buffer changes")
	}
	if o.ChangeBuffer != nil && o.ChangeBuffer.pool != o.Pool {
		return o, errors.New("btree: Options.ChangeBuffer was made for another pool: give the index the buffer of its own pool")
	}
	if o.Fields == 0 {
		o.Fields = 2
		if o.Clustered {
			o.Fields = 4
		}
	}
	if o.Fields < 1 || o.Fields > 1023 {
		return o, fmt.Errorf("btree: Options.Fields is %d, allowed 1..1023", o.Fields)
	}
	if o.MaxKeyLen < 0 || o.MaxKeyLen > page.MaxRecDataLen {
		return o, fmt.Errorf("btree: Options.MaxKeyLen is %d, allowed 0..%d", o.MaxKeyLen, page.MaxRecDataLen)
	}
	p := &o.Padding
	if p.ThresholdPct == 0 {
		p.ThresholdPct = 5
	}
	if p.MaxPct == 0 {
		p.MaxPct = 50
	}
	if p.ThresholdPct < 1 || p.ThresholdPct > 100 {
		return o, fmt.Errorf("btree: Padding.ThresholdPct is %d, allowed 1..100 (Disabled turns padding off)", p.ThresholdPct)
	}
	if p.MaxPct < 1 || p.MaxPct > 75 {
		return o, fmt.Errorf("btree: Padding.MaxPct is %d, allowed 1..75", p.MaxPct)
	}
	if o.MergeThresholdPct == 0 {
		o.MergeThresholdPct = 50
	}
	if o.MergeThresholdPct < 1 || o.MergeThresholdPct > 50 {
		return o, fmt.Errorf("btree: Options.MergeThresholdPct is %d, allowed 1..50", o.MergeThresholdPct)
	}
	if o.ExternRefs != nil && !o.Clustered {
		return o, errors.New("btree: Options.ExternRefs is for clustered indexes: only their records have off-page columns")
	}
	if o.FillFactor == 0 {
		o.FillFactor = 100
	}
	if o.FillFactor < 10 || o.FillFactor > 100 {
		return o, fmt.Errorf("btree: Options.FillFactor is %d, allowed 10..100", o.FillFactor)
	}
	return o, nil
}
