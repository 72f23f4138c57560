//go:build linux && !race

package bufpool

import (
	"runtime"
	"syscall"
)

// newArena maps n bytes of anonymous memory for an instance's frames,
// outside the Go heap, as pebble's manual allocator keeps its block cache
// off the heap: the garbage collector does not scan the frames or count
// them toward GOGC, so a pool of N bytes does not let N bytes of garbage
// pile up before a collection. Pages are touched, and become resident,
// only as frames are used. Under the race detector, which checks only Go
// memory, arena_other.go's heap arena is used instead, so that races on
// page bytes are still found. The mapping is released once frames, the
// instance's frame descriptors, are unreachable: every Guard points at
// its frame, so none can be in use then.
func newArena(frames []frame, n int) []byte {
	if n == 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n) // no mapping to be had: the Go heap still works
	}
	runtime.AddCleanup(&frames[0], func(b []byte) { _ = syscall.Munmap(b) }, b)
	return b
}
