package sim

import (
	"os"
	"syscall"
	"unsafe"
)

// t8Fiemap is struct fiemap with no extent array (linux/fiemap.h): asked
// with fm_extent_count 0, the kernel only counts the extents.
type t8Fiemap struct {
	start, length                     uint64
	flags, mapped, extentCount, rsvd0 uint32
}

const (
	t8FSIocFiemap   = 0xC020660B // FS_IOC_FIEMAP, _IOWR('f', 11, struct fiemap)
	t8FiemapFlagSyn = 0x1        // FIEMAP_FLAG_SYNC: write dirty data first
)

// t8Extents returns how many extents the file system maps for path, from
// FIEMAP; ok is false where the file system cannot say.
func t8Extents(path string) (n int64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	fm := t8Fiemap{length: ^uint64(0), flags: t8FiemapFlagSyn}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), t8FSIocFiemap, uintptr(unsafe.Pointer(&fm))); errno != 0 {
		return 0, false
	}
	return int64(fm.mapped), true
}
