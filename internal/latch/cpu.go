package latch

import (
	"runtime"
	"time"
)

// Utilisation returns CPU utilisation over an interval: cpu / (wall ×
// GOMAXPROCS), where cpu is the difference of two ProcessCPU readings
// taken wall apart. 1 means every P was busy; research/targets.md T1
// compares it across runs (seed 000: 85% uncompressed, 7% compressed). It
// includes the garbage collector and anything else in the process, and is
// 0 when wall is not positive.
func Utilisation(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return cpu.Seconds() / (wall.Seconds() * float64(runtime.GOMAXPROCS(0)))
}
