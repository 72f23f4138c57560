//go:build !linux

package storage

import "os"

// punchHole is not implemented outside Linux: InnoDB's fallocate path is
// Linux-only too (Windows uses FSCTL_SET_SPARSE/ZERO_DATA, not modelled).
func punchHole(fd uintptr, off, length int64) error { return ErrPunchUnsupported }

// allocatedBytes returns the apparent size: without hole punching a file
// has no holes that zipsim made.
func allocatedBytes(fi os.FileInfo) int64 { return fi.Size() }

// blockSize returns 4096, the usual filesystem block: outside Linux zipsim
// does not ask.
func blockSize(fi os.FileInfo) int { return 4096 }
