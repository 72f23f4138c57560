package storage

import "time"

// Tablespace counters, striped (internal/stripe) so that many goroutines
// doing I/O never share one atomic.
const (
	cReads = iota
	cWrites
	cBytesRead
	cBytesWritten
	cSyncs
	cPagesCompressed
	cPagesNoSaving
	cCompressNanos
	cDecompressions
	cDecompressNanos
	cCount
)

// IOStats is a snapshot of a tablespace's page I/O counters. Header writes
// done by Create, Open, Sync and Close are not counted; Syncs counts calls
// of Tablespace.Sync.
type IOStats struct {
	Reads        uint64 // ReadPage calls that reached the device
	Writes       uint64 // WritePage calls that reached the device
	BytesRead    uint64 // bytes read from the device: a whole slot per read, even one stored compressed
	BytesWritten uint64 // bytes written to the device: roundup(38+clen, FSBlockSize) for a page stored compressed
	Syncs        uint64

	// Transparent page compression (zero when it is off).
	PagesCompressed uint64        // pages written compressed, with a hole punched after them
	PagesNoSaving   uint64        // pages written whole because compression would not save a filesystem block
	CompressTime    time.Duration // time spent compressing, failures included
	Decompressions  uint64        // compressed slots decompressed by ReadPage, failures included
	DecompressTime  time.Duration
}

// Sub returns s − o, the activity between two snapshots.
func (s IOStats) Sub(o IOStats) IOStats {
	return IOStats{
		Reads: s.Reads - o.Reads, Writes: s.Writes - o.Writes,
		BytesRead: s.BytesRead - o.BytesRead, BytesWritten: s.BytesWritten - o.BytesWritten,
		Syncs:           s.Syncs - o.Syncs,
		PagesCompressed: s.PagesCompressed - o.PagesCompressed, PagesNoSaving: s.PagesNoSaving - o.PagesNoSaving,
		CompressTime:   s.CompressTime - o.CompressTime,
		Decompressions: s.Decompressions - o.Decompressions, DecompressTime: s.DecompressTime - o.DecompressTime,
	}
}

// Usage is the space a tablespace takes.
type Usage struct {
	Pages          int64 // slots, the header page included: the space size the header records
	LogicalBytes   int64 // Pages × PageSize: the uncompressed size of the pages
	ApparentBytes  int64 // the device's size, what ls -l shows: up to Pages × PhysicalSize, less when the last slot is stored compressed
	AllocatedBytes int64 // what the device really allocates, what du shows (Device.Allocated)
	Holes          int64 // slots currently stored compressed, each followed by a punched hole
}
