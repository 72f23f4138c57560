package storage

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The timer pump keeps short modelled sleeps short. An idle Go runtime
// waits for its next timer in epoll_wait, whose timeout is in whole
// milliseconds (runtime/netpoll_epoll.go rounds anything shorter up to
// 1 ms), so a 100 µs sleep takes about 1 ms while few goroutines run and
// less as the process gets busier: modelled I/O that speeds up with load.
// In T6 this alone made an I/O-bound run's throughput climb 4× over its
// intervals (real time per 100 µs read 719 µs at first, 266 µs later).
// The pump is a goroutine on a thread of its own that, while a modelled
// sleep is in flight, sleeps pumpTick in the kernel and then yields to
// the scheduler, which then runs the timers that are due: a 100 µs sleep
// of an otherwise idle process takes about 140 µs. It runs while any
// Latency device that models sub-millisecond operations with time.Sleep
// is open.
//
// It is not free: about 20,000 wake-ups a second, some 30% of a core,
// while sleeps are in flight, and it competes with CPU-bound goroutines
// for the processors (measured in BENCHMARKS.md, "Storage"). A model
// whose Sleep is set, time.Sleep included, runs without it.
const pumpTick = 50 * time.Microsecond

var pump struct {
	mu       sync.Mutex
	users    int
	stop     chan struct{}
	sleepers atomic.Int64 // modelled sleeps in flight on pumped devices
}

// pumpWake tells the pump that a sleep began after none were in flight.
var pumpWake = make(chan struct{}, 1)

// pumpStart counts a user of the pump and starts it for the first.
func pumpStart() {
	pump.mu.Lock()
	defer pump.mu.Unlock()
	pump.users++
	if pump.users > 1 {
		return
	}
	stop := make(chan struct{})
	pump.stop = stop
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for {
			if pump.sleepers.Load() == 0 {
				select {
				case <-stop:
					return
				case <-pumpWake:
				}
				continue
			}
			select {
			case <-stop:
				return
			default:
			}
			kernelSleep(pumpTick)
			runtime.Gosched()
		}
	}()
}

// pumpStop drops a user and stops the pump after the last.
func pumpStop() {
	pump.mu.Lock()
	defer pump.mu.Unlock()
	pump.users--
	if pump.users == 0 {
		close(pump.stop)
	}
}

// pumpedSleep is sleep(d) with the pump running through it.
func pumpedSleep(sleep func(time.Duration), d time.Duration) {
	if pump.sleepers.Add(1) == 1 {
		select {
		case pumpWake <- struct{}{}:
		default:
		}
	}
	sleep(d)
	pump.sleepers.Add(-1)
}

// needsPump reports whether m sleeps with time.Sleep for some operation
// shorter than the runtime's 1 ms idle timer granularity.
func needsPump(m LatencyModel) bool {
	if m.Sleep != nil {
		return false
	}
	for _, d := range []time.Duration{m.Read, m.Write, m.Sync, m.Punch} {
		if d > 0 && d < time.Millisecond {
			return true
		}
	}
	return false
}
