package storage

import (
	"errors"
	"fmt"
)

// Device is the byte-addressed store under a tablespace: a file, a sparse
// region of memory, or either behind a latency model. It is the part of
// InnoDB's os0file.cc that zipsim needs: positioned reads and writes
// (os_file_read / os_file_write → pread / pwrite), fsync, the apparent and
// allocated sizes of a file, and hole punching (os_file_punch_hole →
// fallocate(FALLOC_FL_PUNCH_HOLE)).
//
// A Device knows nothing about pages. Offsets and lengths are in bytes, so a
// tablespace can read its header before it knows its slot size and can punch
// holes smaller than a slot; slots are the tablespace's business.
//
// Implementations are safe for concurrent use on ranges that do not overlap.
// Overlapping concurrent operations where one writes or punches are a data
// race, as they would be on a []byte; the tablespace never issues them because
// the buffer pool serializes I/O on one page.
type Device interface {
	// ReadAt fills p with the bytes at off. Bytes past Size() or inside a
	// hole read as zero, so it never returns io.EOF.
	ReadAt(p []byte, off int64) error
	// WriteAt writes p at off, growing Size() as needed. If it fails,
	// Size() still covers whatever part of p reached the device, so that a
	// tablespace can tell whether a failed write grew the space.
	WriteAt(p []byte, off int64) error
	// PunchHole deallocates [off, off+length) without changing Size(); later
	// reads of the range return zeros. A device that cannot do it returns an
	// error wrapping ErrPunchUnsupported.
	PunchHole(off, length int64) error
	// Sync makes earlier writes durable (fsync).
	Sync() error
	// Size is the apparent size in bytes, what ls -l shows.
	Size() int64
	// Allocated is the number of bytes really allocated, what du shows:
	// st_blocks × 512 for a file.
	Allocated() int64
	// Close releases the device. Reads, writes, punches and syncs after Close
	// return ErrClosed; Size and Allocated keep working.
	Close() error
}

// BlockSizer is implemented by a Device that knows its allocation unit, the
// filesystem block that a write allocates and a punched hole frees. A
// tablespace with transparent compression rounds compressed pages to it
// (Options.FSBlockSize), as InnoDB takes the block size from the
// filesystem; rounding to any other size would misreport the space saved.
type BlockSizer interface {
	// BlockSize returns the allocation unit in bytes, or 0 when it is not
	// known.
	BlockSize() int
}

var (
	// ErrPunchUnsupported is returned (wrapped) by PunchHole on a device or
	// filesystem that cannot deallocate part of a file. InnoDB then silently
	// disables transparent page compression; zipsim refuses to create or open
	// such a space instead.
	ErrPunchUnsupported = errors.New("storage: device cannot punch holes (fallocate PUNCH_HOLE unsupported)")
	// ErrClosed is returned by I/O on a closed device or tablespace.
	ErrClosed = errors.New("storage: closed")
)

// checkRange validates an offset and a length given to a device.
func checkRange(op string, off, n int64) error {
	if off < 0 || n < 0 || off+n < off {
		return fmt.Errorf("storage: %s at offset %d, length %d: negative offset or length, or overflow", op, off, n)
	}
	return nil
}
