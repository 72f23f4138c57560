package storage

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// FileOptions configures a File device. The zero value works.
type FileOptions struct {
	// NoSync makes Sync (and the sync in Close) a no-op, like
	// innodb_flush_method=nosync: for experiments where durability does not
	// matter and fsync latency would only add noise.
	NoSync bool
}

// File is a Device on a real file, the .ibd of file-per-table InnoDB. Reads
// and writes are pread/pwrite (os.File ReadAt/WriteAt, as os_file_pread /
// os_file_pwrite in os0file.cc); a short read at end of file is completed
// with zeros. PunchHole is fallocate(FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE)
// on Linux, as os_file_punch_hole does; other systems return
// ErrPunchUnsupported. Allocated is st_blocks × 512 on Linux (what du
// reports) and the apparent size elsewhere; BlockSize is st_blksize on Linux
// and 4096 elsewhere.
//
// A File is safe for concurrent use on ranges that do not overlap.
type File struct {
	f      *os.File
	rc     syscall.RawConn
	path   string
	opts   FileOptions
	bs     int
	size   atomic.Int64
	closed atomic.Bool
}

// OpenFile opens path for reading and writing, creating it (mode 0644) if it
// does not exist. An existing file keeps its contents.
func OpenFile(path string, opts FileOptions) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("storage: %s is not a regular file", path)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: %s: %w", path, err)
	}
	d := &File{f: f, rc: rc, path: path, opts: opts, bs: blockSize(fi)}
	d.size.Store(fi.Size())
	return d, nil
}

// Path returns the file's path.
func (d *File) Path() string { return d.path }

// BlockSize implements BlockSizer: st_blksize of the file at open on Linux,
// the filesystem's block, and 4096 elsewhere.
func (d *File) BlockSize() int { return d.bs }

// ReadAt implements Device.
func (d *File) ReadAt(p []byte, off int64) error {
	if d.closed.Load() {
		return ErrClosed
	}
	if err := checkRange("read", off, int64(len(p))); err != nil {
		return err
	}
	n, err := d.f.ReadAt(p, off)
	if err == io.EOF {
		clear(p[n:])
		return nil
	}
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// WriteAt implements Device.
func (d *File) WriteAt(p []byte, off int64) error {
	if d.closed.Load() {
		return ErrClosed
	}
	if err := checkRange("write", off, int64(len(p))); err != nil {
		return err
	}
	n, err := d.f.WriteAt(p, off)
	// A failed write may still have written, and grown the file, in part.
	if end := off + int64(n); n > 0 {
		for {
			s := d.size.Load()
			if end <= s || d.size.CompareAndSwap(s, end) {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// PunchHole implements Device.
func (d *File) PunchHole(off, length int64) error {
	if d.closed.Load() {
		return ErrClosed
	}
	if err := checkRange("punch hole", off, length); err != nil {
		return err
	}
	if length == 0 {
		return nil
	}
	var perr error
	if err := d.rc.Control(func(fd uintptr) { perr = punchHole(fd, off, length) }); err != nil {
		return fmt.Errorf("storage: punch hole in %s: %w", d.path, err)
	}
	if perr != nil {
		if errors.Is(perr, ErrPunchUnsupported) {
			return fmt.Errorf("storage: punch hole in %s: %w", d.path, perr)
		}
		return fmt.Errorf("storage: punch hole in %s at %d+%d: %w", d.path, off, length, perr)
	}
	return nil
}

// Sync implements Device (fsync), unless FileOptions.NoSync.
func (d *File) Sync() error {
	if d.closed.Load() {
		return ErrClosed
	}
	if d.opts.NoSync {
		return nil
	}
	if err := d.f.Sync(); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// Size implements Device. It is tracked in memory from the size at open and
// the writes since, so it costs no system call.
func (d *File) Size() int64 { return d.size.Load() }

// Allocated implements Device with fstat: st_blocks × 512 on Linux, the
// apparent size elsewhere. After Close it stats the path instead.
func (d *File) Allocated() int64 {
	var fi os.FileInfo
	var err error
	if d.closed.Load() {
		fi, err = os.Stat(d.path)
	} else {
		fi, err = d.f.Stat()
	}
	if err != nil {
		return d.Size()
	}
	return allocatedBytes(fi)
}

// Close syncs (unless NoSync) and closes the file.
func (d *File) Close() error {
	if d.closed.Swap(true) {
		return ErrClosed
	}
	var serr error
	if !d.opts.NoSync {
		serr = d.f.Sync()
	}
	cerr := d.f.Close()
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("storage: close %s: %w", d.path, err)
	}
	return nil
}

// Remove deletes the file, closing it first without a sync if it is open,
// and returns how long the unlink itself took. That is the cost of DROP TABLE
// on file-per-table InnoDB (row_drop_table_for_mysql → os_file_delete), which
// grows with the number of extents a file has: a file riddled with punched
// holes can take far longer to unlink than a dense one.
func (d *File) Remove() (time.Duration, error) {
	if !d.closed.Swap(true) {
		if err := d.f.Close(); err != nil {
			return 0, fmt.Errorf("storage: close %s: %w", d.path, err)
		}
	}
	start := time.Now()
	err := os.Remove(d.path)
	took := time.Since(start)
	if err != nil {
		return took, fmt.Errorf("storage: %w", err)
	}
	return took, nil
}
