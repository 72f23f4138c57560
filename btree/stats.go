package btree

import (
	"fmt"
	"strings"

	"github.com/zipsim/zipsim/internal/table"
)

// Counter indexes of an index's striped counters.
const (
	cInserts = iota
	cInsertsOptimistic
	cInsertsPessimistic
	cUpdates
	cUpdatesInPlace
	cUpdatesPessimistic
	cDeletes
	cLeafSplitsSpace
	cLeafSplitsZip
	cNodeSplitsSpace
	cNodeSplitsZip
	cSplitIterations
	cSplitCopies
	cRootRaises
	cSiblingInserts
	cReorganizations
	cRecompressions
	cRestores
	cPadRefusals
	cMerges
	cMergeFailures
	cDiscards
	cLifts
	cSysResets
	cTreeLatches
	cLatchMisses
	cRows     // signed, as uint64 deltas
	cLeafData // signed: bytes of live records on leaves
	nCounters
)

// Stats is a snapshot of an index's B-tree counters and shape. Counters
// only grow; Sub gives the change between two snapshots. Shape fields
// (Height, PagesPerLevel, Rows, LeafDataBytes, Pad) are current values,
// which Sub keeps from the later snapshot.
type Stats struct {
	Name string
	ID   uint64

	Inserts            uint64 // rows inserted (BulkLoad included)
	InsertsOptimistic  uint64 // btr_cur_optimistic_insert succeeded
	InsertsPessimistic uint64 // went to btr_cur_pessimistic_insert
	Updates            uint64
	UpdatesInPlace     uint64 // same size: btr_cur_update_in_place
	UpdatesPessimistic uint64 // btr_cur_pessimistic_update
	Deletes            uint64

	// Splits by level and cause: Zip when the uncompressed page had room
	// and only the compressed page (or the pad) refused the record.
	LeafSplitsSpace, LeafSplitsZip uint64
	NodeSplitsSpace, NodeSplitsZip uint64
	// SplitIterations counts the extra passes of btr_page_split_and_insert
	// (n_iterations > 0): the insert failed on the chosen half.
	SplitIterations uint64
	// SplitCopies counts moves whose compression failed twice, so the
	// whole zip image was copied and trimmed (page_zip_copy_recs).
	SplitCopies uint64
	RootRaises  uint64
	// SiblingInserts counts records a full leaf passed to the start of its
	// right sibling instead of splitting (btr_insert_into_right_sibling).
	SiblingInserts uint64
	// Reorganizations counts btr_page_reorganize calls (compressed: one
	// compress each); Recompressions counts page_zip_reorganize after an
	// insert into the uncompressed page only; Restores counts the
	// decompressions that undo a failed recompression.
	Reorganizations, Recompressions, Restores uint64
	// PadRefusals counts optimistic inserts and merges refused because
	// data size + record would reach the padded optimal page size.
	PadRefusals uint64
	// Merges counts pages merged into a sibling (btr_compress);
	// MergeFailures merges that did not fit or did not compress; Discards
	// empty pages removed without a merge; Lifts the root taking over its
	// only child (btr_lift_page_up).
	Merges, MergeFailures, Discards, Lifts uint64
	// SysResets counts records whose DB_TRX_ID and DB_ROLL_PTR purge
	// reset (ResetSys).
	SysResets uint64
	// TreeLatches counts the pages structure changes latched in advance
	// under the SX index lock (Options.SXIndexLock); LatchMisses the pages
	// one had to latch exclusively without having latched them in advance,
	// which btr_cur_will_modify_tree's rules should leave at 0: such a
	// latch comes after latches below it, against the order searches
	// couple theirs in.
	TreeLatches, LatchMisses uint64

	Height        int
	PagesPerLevel []int // index 0 is the leaf level
	Rows          int64
	LeafDataBytes int64 // bytes of live records on leaves
	PageSize      int
	Pad           int // current adaptive pad, bytes
}

// Splits returns all page splits.
func (s Stats) Splits() uint64 {
	return s.LeafSplitsSpace + s.LeafSplitsZip + s.NodeSplitsSpace + s.NodeSplitsZip
}

// LeafPages returns the pages at level 0.
func (s Stats) LeafPages() int {
	if len(s.PagesPerLevel) == 0 {
		return 0
	}
	return s.PagesPerLevel[0]
}

// LeafFill returns the average share of a leaf taken by live records.
func (s Stats) LeafFill() float64 {
	if s.LeafPages() == 0 || s.PageSize == 0 {
		return 0
	}
	return float64(s.LeafDataBytes) / float64(s.LeafPages()*s.PageSize)
}

// RowsPerLeaf returns the average number of rows on a leaf.
func (s Stats) RowsPerLeaf() float64 {
	if s.LeafPages() == 0 {
		return 0
	}
	return float64(s.Rows) / float64(s.LeafPages())
}

// Sub returns the counter changes since prev; shape fields stay s's.
func (s Stats) Sub(prev Stats) Stats {
	d := s
	d.Inserts -= prev.Inserts
	d.InsertsOptimistic -= prev.InsertsOptimistic
	d.InsertsPessimistic -= prev.InsertsPessimistic
	d.Updates -= prev.Updates
	d.UpdatesInPlace -= prev.UpdatesInPlace
	d.UpdatesPessimistic -= prev.UpdatesPessimistic
	d.Deletes -= prev.Deletes
	d.LeafSplitsSpace -= prev.LeafSplitsSpace
	d.LeafSplitsZip -= prev.LeafSplitsZip
	d.NodeSplitsSpace -= prev.NodeSplitsSpace
	d.NodeSplitsZip -= prev.NodeSplitsZip
	d.SplitIterations -= prev.SplitIterations
	d.SplitCopies -= prev.SplitCopies
	d.RootRaises -= prev.RootRaises
	d.SiblingInserts -= prev.SiblingInserts
	d.Reorganizations -= prev.Reorganizations
	d.Recompressions -= prev.Recompressions
	d.Restores -= prev.Restores
	d.PadRefusals -= prev.PadRefusals
	d.Merges -= prev.Merges
	d.MergeFailures -= prev.MergeFailures
	d.Discards -= prev.Discards
	d.Lifts -= prev.Lifts
	d.SysResets -= prev.SysResets
	d.TreeLatches -= prev.TreeLatches
	d.LatchMisses -= prev.LatchMisses
	return d
}

// Table prints the snapshots as one BTREE table, a row per index.
func Table(stats []Stats) string {
	var b strings.Builder
	header := []string{"INDEX", "HEIGHT", "PAGES", "ROWS", "LEAF_FILL", "ROWS_PER_LEAF",
		"INSERTS", "OPTIMISTIC", "PESSIMISTIC", "SPLITS_LEAF_SPACE", "SPLITS_LEAF_ZIP",
		"SPLITS_NODE_SPACE", "SPLITS_NODE_ZIP", "SPLIT_ITERATIONS", "SIBLING_INSERTS", "REORGANIZE", "RECOMPRESS",
		"MERGES", "SYS_RESETS", "TREE_LATCHES", "LATCH_MISSES", "PAD"}
	rows := make([][]string, 0, len(stats))
	for _, s := range stats {
		pages := 0
		for _, n := range s.PagesPerLevel {
			pages += n
		}
		rows = append(rows, []string{s.Name, fmt.Sprint(s.Height), fmt.Sprint(pages),
			fmt.Sprint(s.Rows), fmt.Sprintf("%.3f", s.LeafFill()), fmt.Sprintf("%.1f", s.RowsPerLeaf()),
			fmt.Sprint(s.Inserts), fmt.Sprint(s.InsertsOptimistic), fmt.Sprint(s.InsertsPessimistic),
			fmt.Sprint(s.LeafSplitsSpace), fmt.Sprint(s.LeafSplitsZip), fmt.Sprint(s.NodeSplitsSpace),
			fmt.Sprint(s.NodeSplitsZip), fmt.Sprint(s.SplitIterations), fmt.Sprint(s.SiblingInserts), fmt.Sprint(s.Reorganizations),
			fmt.Sprint(s.Recompressions), fmt.Sprint(s.Merges), fmt.Sprint(s.SysResets),
			fmt.Sprint(s.TreeLatches), fmt.Sprint(s.LatchMisses), fmt.Sprint(s.Pad)})
	}
	table.Write(&b, "BTREE", header, rows)
	return b.String()
}

// String prints the snapshot as a one-row BTREE table.
func (s Stats) String() string { return Table([]Stats{s}) }
