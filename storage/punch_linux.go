//go:build linux

package storage

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// fallocate(2) mode bits (linux/falloc.h).
const (
	fallocKeepSize  = 0x01 // FALLOC_FL_KEEP_SIZE
	fallocPunchHole = 0x02 // FALLOC_FL_PUNCH_HOLE
)

// punchHole deallocates [off, off+length) of fd, keeping its size, as
// InnoDB's os_file_punch_hole_posix does.
func punchHole(fd uintptr, off, length int64) error {
	for {
		err := syscall.Fallocate(int(fd), fallocPunchHole|fallocKeepSize, off, length)
		if err == syscall.EINTR {
			continue
		}
		if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
			return fmt.Errorf("%w (%w)", ErrPunchUnsupported, err)
		}
		return err
	}
}

// allocatedBytes returns st_blocks × 512, the space the file really uses.
func allocatedBytes(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}

// blockSize returns st_blksize, the filesystem's block, or 4096 if the
// stat has none.
func blockSize(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Blksize > 0 {
		return int(st.Blksize)
	}
	return 4096
}
