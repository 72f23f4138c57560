// Package storage holds the devices pages are stored on and the tablespace
// that lays pages out on a device.
//
// # Basics
//
// A Device is a byte-addressed store: ReadAt, WriteAt, PunchHole, Sync,
// Size (apparent, ls -l) and Allocated (real, du). The design sketch said "read
// and write a slot"; the device is byte-addressed instead so that a
// tablespace can read its header before it knows its slot size and can punch
// holes smaller than a slot, and slots live one layer up, in the Tablespace.
// Three devices are provided:
//
//   - Memory, a sparse in-memory device that allocates in filesystem-block
//     chunks, so that Allocated and hole punching behave as on ext4;
//   - File, a real file: pread/pwrite, fsync, fallocate(PUNCH_HOLE) on Linux,
//     st_blocks for Allocated, and Remove, timed, for DROP TABLE;
//   - Latency, a wrapper that makes any device take the time a LatencyModel
//     says (NVMe, SATASSD, Disk7200, PageCache presets), by sleeping with at
//     most QueueDepth operations in flight.
//
// A Tablespace is InnoDB's file-per-table .ibd (fil0fil.cc's fil_space_t and
// its node, on os0file.cc's I/O): slot 0 holds the header page (zipsim's
// version of the FSP header that fsp0fsp.cc's fsp_header_init writes), slot
// n ≥ 1 holds page n, up to page.FilNull−1 (FilNull means "no page"). Slots
// are the physical page size: KEY_BLOCK_SIZE bytes for a
// ROW_FORMAT=COMPRESSED table (Options.ZipSize), otherwise the logical page
// size. The header records the sizes, the space id, the space size in
// slots (FSP_SIZE), the transparent compression setting and a clean/open
// state byte, under a checksum; Open refuses a space whose header still
// says open (ErrNotClean), since zipsim has no redo log to recover it. The
// space size is the tablespace's, not the device's: WritePage grows it, and
// Create, Sync (when it has grown) and Close write it, so slots that are
// short on the device (a last slot stored compressed) or not there at all
// (slots skipped over) still belong to the space and read as zeros.
//
// With Options.Compression set, the tablespace does MySQL 5.7 transparent
// page compression in the I/O path, as os0file.cc's os_file_compress_page
// and os_file_io do: a page is compressed when written (with compress2's
// zlib parameters, Codec.CompressFileLimit), stored in
// roundup(38+clen, FSBlockSize) bytes, and the rest of its slot is punched
// out; reading it decompresses it again, so the buffer pool above only sees
// uncompressed pages. A page that would not save a filesystem block is
// written whole. transparent.go has the details. zipsim refuses transparent
// compression on a device that cannot punch holes, where InnoDB would
// silently turn it off. The filesystem block is the device's (BlockSizer:
// Memory's BlockSize, a File's st_blksize), as InnoDB takes it from the
// filesystem; a different Options.FSBlockSize is an error, since rounding
// to one block while the device allocates in another misreports the space
// saved. Codecs are shared per setting across the process
// (compress.Shared), so a thousand tablespaces hold one encoder set.
//
// # Concurrency
//
// Devices are safe for concurrent use on byte ranges that do not overlap;
// overlapping operations where one writes are a data race, as on a []byte.
// Memory reads and writes into allocated chunks take no lock: the chunk
// table is an atomically published directory of segments of atomic chunk
// pointers, and only allocating or freeing chunks takes a mutex. Latency limits the operations
// in flight with a semaphore (a buffered channel) and counts with striped
// counters.
//
// Tablespace ReadPage, WritePage, Pages, Stats and Usage are safe for
// concurrent use on different pages. The caller (the buffer pool) must not
// run two writes, or a read and a write, of the same page at once, which
// InnoDB's buffer pool guarantees with its io-fix. Sync may run alongside
// them; header writes are serialized by a mutex. Statistics are striped
// counters (internal/stripe) summed on read. The set of slots stored
// compressed is a mutex-protected bitset (a map of 64-slot words, so that a
// far page costs one word) touched once per transparent write, next to a
// compression that takes far longer, and its size
// (Usage.Holes) is one atomic changed under that mutex, so a concurrent
// read always sees a count between 0 and the pages written. The space
// size is an atomic that WritePage raises. Create, Open and Close are not
// concurrent with anything on the same tablespace or device.
//
// # Memory
//
// A Memory device holds its data in BlockSize chunks, one Go allocation
// each, plus a pointer per chunk in segments of 4096 (allocated when a write
// first lands in one) and a directory pointer per segment; punched
// chunks go to a small free list and are reused, so transparent compression
// reaches a steady state with no allocations. A Memory keeps its contents
// across Close: Reopen makes it usable again, which is how a test restarts a
// tablespace; Clone takes a disk image, which is how it models a crash.
// ReadPage and WritePage allocate nothing on the plain path; the
// transparent path borrows a PageSize scratch buffer from a sync.Pool.
//
// # Caveats
//
//   - No extents, segments or free-page management yet: a page number is a
//     slot number and WritePage extends the space as needed. Page allocation
//     (fsp0fsp.cc's extent descriptors and segment inodes) comes later.
//     Slots skipped over are left sparse on the device (never written, so
//     never allocated) where InnoDB extends a file by whole extents and
//     allocates them, so Allocated is lower than InnoDB's for a space
//     written out of order.
//   - No doublewrite buffer and no redo log, so no crash recovery: a space
//     that was not closed cleanly is refused, not repaired.
//   - Transparent compression keeps its slot header in the FIL header's
//     type and Aux fields instead of InnoDB's v1 compression header, so a
//     page whose Aux field is in use is refused; only ZBLOB pages use Aux,
//     and they belong to ROW_FORMAT=COMPRESSED tables, which cannot use
//     transparent compression.
//   - A compressed slot is read whole: ReadPage reads PhysicalSize bytes,
//     counts them all in IOStats.BytesRead, and Latency charges their
//     transfer time, although a filesystem reads no data for the punched
//     hole. InnoDB's counters also count the full page; its device time
//     does not.
//   - Decompression runs in the goroutine that calls ReadPage, so as many
//     pages decompress at once as there are readers. InnoDB decompresses
//     asynchronous reads (read-ahead) in its I/O threads, so their number
//     (innodb_read_io_threads) bounds that CPU; zipsim has no such bound.
//   - Latency holds its queue slot while the wrapped device does the real
//     operation and then sleeps the modelled time on top. Over a Memory
//     the real part is negligible; over a File the real I/O time adds to
//     the modelled time, so a File behind Latency is slower than its
//     model.
//   - Open of a transparently compressed space reads the FIL header of every
//     slot to rebuild the count of compressed slots (Usage.Holes): one small
//     read per page, which InnoDB does not need to do.
//   - Only Linux punches holes in files. Elsewhere a File reports
//     ErrPunchUnsupported and Allocated is the apparent size.
//   - A Memory device stops at MaxMemorySize (64 TiB). Its chunk table has
//     two levels: a write at a huge offset costs one directory pointer per
//     4096 blocks before it, 32 MiB of directory at the end of a 64 TiB
//     device of 4 KiB blocks, 256 MiB with 512-byte blocks.
//   - Latency sleeps with time.Sleep, which overshoots short sleeps by up to
//     about a millisecond; see LatencyModel.
package storage
