package stripe

import (
	"sync/atomic"
	"unsafe"
)

// alignOffset returns how many words to skip so that &w[off] starts a cache line.
func alignOffset(w []atomic.Uint64) int {
	addr := uintptr(unsafe.Pointer(&w[0]))
	rem := addr % cacheLine
	if rem == 0 {
		return 0
	}
	return int((cacheLine - rem) / 8)
}
