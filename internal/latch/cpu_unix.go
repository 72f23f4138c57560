//go:build unix

package latch

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time the process has used so far, user plus
// system, from getrusage(RUSAGE_SELF). The kernel accounts it in
// scheduler ticks or better; Linux reports microseconds.
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
