//go:build unix

package storage

import (
	"syscall"
	"time"
)

// kernelSleep blocks the calling thread for d in the kernel, not in the
// Go scheduler's timers.
func kernelSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	_ = syscall.Nanosleep(&ts, nil)
}
