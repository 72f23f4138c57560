package storage

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim/internal/stripe"
)

// LatencyModel describes a storage device by how long its operations take.
// The zero value is a device that takes no time and has no queue limit.
//
// An operation of n bytes takes its fixed latency (Read or Write) plus its
// transfer time n / Bandwidth; a Sync takes Sync, a PunchHole takes Punch. At
// most QueueDepth operations are in flight; the others wait their turn (FIFO,
// as goroutines blocked on a channel are served), which is what makes a
// queue-depth-1 disk serialize a busy simulation.
//
// Time is modelled by sleeping, so that goroutines waiting on I/O really do
// let others run, which is what turns a split holding the index lock into a
// stall (research/targets.md, T6/T7). time.Sleep alone overshoots short
// sleeps: measured on the development machine (Linux, Go 1.26, 2 vCPUs;
// 300 sleeps each, and BenchmarkSleepOvershoot with pump=off), a 20 µs
// sleep took about 1.06 ms, a 100 µs sleep about 1.08 ms and a 1 ms sleep
// about 1.08 ms. When the runtime has nothing else to run it waits for the
// next timer in epoll_wait, whose timeout is in whole milliseconds
// (runtime/netpoll_epoll.go rounds anything under 1 ms up to 1 ms), so a
// model of an NVMe read is felt as a ~1 ms wait unless other goroutines
// keep the scheduler busy, and gets faster as they do. A device whose
// model has sub-millisecond operations therefore runs the timer pump
// (timerpump.go) while it is open. Latency.Stats reports both the modelled
// wait and the real time slept so a report can show the difference;
// inject a different Sleep (a recorder, or a virtual clock) where that
// matters.
type LatencyModel struct {
	Read  time.Duration // fixed cost of a read (seek, command, flash read)
	Write time.Duration // fixed cost of a write
	Sync  time.Duration // cost of a Sync (cache flush)
	Punch time.Duration // cost of a PunchHole (a metadata update); 0 in the presets

	// Bandwidth in bytes per second, for the transfer part of reads and
	// writes; 0 means transfers take no time.
	Bandwidth int64
	// QueueDepth is the number of operations in flight at once; 0 means
	// unlimited.
	QueueDepth int
	// Sleep waits for a modelled duration; nil means time.Sleep. Tests inject
	// a recorder so nothing depends on timing.
	Sleep func(time.Duration)
}

// Presets. The numbers are orders of magnitude, not a particular product.
var (
	// NVMe is a datacenter NVMe SSD (PCIe 3/4 x4, e.g. Intel P4510, Samsung
	// PM983/PM9A3 data sheets): ~80 µs for a 4K random read at queue depth 1,
	// ~20 µs for a write absorbed by the drive's DRAM/SLC cache, ~3 GB/s
	// sequential, and a flush of ~100 µs with power-loss protection. QD 64 is
	// far below the hardware queue but above what a simulation issues.
	NVMe = LatencyModel{Read: 80 * time.Microsecond, Write: 20 * time.Microsecond, Sync: 100 * time.Microsecond, Bandwidth: 3_000_000_000, QueueDepth: 64}
	// SATASSD is a SATA SSD (e.g. Samsung 860/870 EVO, Intel S4510 data
	// sheets): ~150 µs read and ~60 µs write latency, ~500 MB/s because the
	// 6 Gb/s link tops out near 550 MB/s, NCQ depth 32, ~1 ms cache flush.
	SATASSD = LatencyModel{Read: 150 * time.Microsecond, Write: 60 * time.Microsecond, Sync: time.Millisecond, Bandwidth: 500_000_000, QueueDepth: 32}
	// Disk7200 is a 7200 rpm hard disk: ~4 ms average seek plus 4.17 ms
	// average rotational delay (half a turn at 120 turns/s) ≈ 8 ms per
	// random access, ~150 MB/s sustained on outer tracks, one head so one
	// operation at a time, and ~10 ms to flush the write cache.
	Disk7200 = LatencyModel{Read: 8 * time.Millisecond, Write: 8 * time.Millisecond, Sync: 10 * time.Millisecond, Bandwidth: 150_000_000, QueueDepth: 1}
	// PageCache is buffered I/O served by the operating system's page cache,
	// as in benchmarks whose data fits in RAM but not in the buffer pool
	// (research/targets.md, T4): ~2 µs for the system call and copy, ~10 GB/s
	// memcpy, no queue limit, and no flush cost (durability is not modelled).
	PageCache = LatencyModel{Read: 2 * time.Microsecond, Write: 2 * time.Microsecond, Bandwidth: 10_000_000_000}
)

// Latency counters.
const (
	lcReads = iota
	lcWrites
	lcSyncs
	lcPunches
	lcBytesRead
	lcBytesWritten
	lcModelled
	lcSlept
	lcQueueWait
	lcCount
)

// LatencyStats is a snapshot of a Latency device's counters.
type LatencyStats struct {
	Reads, Writes, Syncs, Punches uint64
	BytesRead, BytesWritten       uint64
	// Modelled is the total of the durations the model asked to sleep.
	Modelled time.Duration
	// Slept is the real time spent in Sleep, overshoot included.
	Slept time.Duration
	// QueueWait is the real time operations spent waiting for a queue slot.
	QueueWait time.Duration
}

// Sub returns s − o, the activity between two snapshots.
func (s LatencyStats) Sub(o LatencyStats) LatencyStats {
	return LatencyStats{
		Reads: s.Reads - o.Reads, Writes: s.Writes - o.Writes, Syncs: s.Syncs - o.Syncs, Punches: s.Punches - o.Punches,
		BytesRead: s.BytesRead - o.BytesRead, BytesWritten: s.BytesWritten - o.BytesWritten,
		Modelled: s.Modelled - o.Modelled, Slept: s.Slept - o.Slept, QueueWait: s.QueueWait - o.QueueWait,
	}
}

// Latency wraps a Device and makes each operation take the time its
// LatencyModel says, by sleeping while holding one of QueueDepth slots. The
// wrapped device does the real work. Size and Allocated take no time.
type Latency struct {
	dev    Device
	m      LatencyModel
	sleep  func(time.Duration)
	sem    chan struct{}
	stats  *stripe.Counters
	pumped atomic.Bool // holds a use of the timer pump until Close
}

// WithLatency wraps d with the model m. When m sleeps less than a
// millisecond with time.Sleep, the device runs the timer pump
// (timerpump.go) until Close.
func WithLatency(d Device, m LatencyModel) *Latency {
	l := &Latency{dev: d, m: m, sleep: m.Sleep, stats: stripe.New(lcCount)}
	if l.sleep == nil {
		l.sleep = time.Sleep
	}
	if needsPump(m) {
		pumpStart()
		l.pumped.Store(true)
	}
	if m.QueueDepth > 0 {
		l.sem = make(chan struct{}, m.QueueDepth)
	}
	return l
}

// Model returns the latency model.
func (l *Latency) Model() LatencyModel { return l.m }

// Unwrap returns the wrapped device.
func (l *Latency) Unwrap() Device { return l.dev }

// BlockSize implements BlockSizer: the wrapped device's block size, or 0
// when it does not report one.
func (l *Latency) BlockSize() int { return deviceBlockSize(l.dev) }

// transfer returns n bytes / Bandwidth, truncated to the nanosecond. Whole
// seconds first, then the remainder's share, multiplied in 128 bits: n×1e9
// overflows an int64 past 9.2 GB, and so does remainder×1e9 with a
// Bandwidth over 9.2 GB/s. Exact for every n whose time fits a Duration.
func (l *Latency) transfer(n int) time.Duration {
	bw := l.m.Bandwidth
	if bw <= 0 || n <= 0 {
		return 0
	}
	whole, rem := int64(n)/bw, uint64(int64(n)%bw)
	hi, lo := bits.Mul64(rem, uint64(time.Second))
	frac, _ := bits.Div64(hi, lo, uint64(bw)) // rem < bw, so hi < bw: no overflow
	return time.Duration(whole)*time.Second + time.Duration(frac)
}

// acquire takes a queue slot, waiting if all are busy.
func (l *Latency) acquire(s stripe.Stripe) {
	if l.sem == nil {
		return
	}
	select {
	case l.sem <- struct{}{}:
	default:
		start := time.Now()
		l.sem <- struct{}{}
		s.Add(lcQueueWait, uint64(time.Since(start)))
	}
}

// wait sleeps for d, records it and releases the queue slot.
func (l *Latency) wait(s stripe.Stripe, d time.Duration) {
	if d > 0 {
		start := time.Now()
		if l.pumped.Load() {
			pumpedSleep(l.sleep, d)
		} else {
			l.sleep(d)
		}
		s.Add(lcSlept, uint64(time.Since(start)))
		s.Add(lcModelled, uint64(d))
	}
	if l.sem != nil {
		<-l.sem
	}
}

// ReadAt implements Device.
func (l *Latency) ReadAt(p []byte, off int64) error {
	s := l.stats.Stripe()
	l.acquire(s)
	err := l.dev.ReadAt(p, off)
	s.Add(lcReads, 1)
	s.Add(lcBytesRead, uint64(len(p)))
	l.wait(s, l.m.Read+l.transfer(len(p)))
	return err
}

// WriteAt implements Device.
func (l *Latency) WriteAt(p []byte, off int64) error {
	s := l.stats.Stripe()
	l.acquire(s)
	err := l.dev.WriteAt(p, off)
	s.Add(lcWrites, 1)
	s.Add(lcBytesWritten, uint64(len(p)))
	l.wait(s, l.m.Write+l.transfer(len(p)))
	return err
}

// PunchHole implements Device.
func (l *Latency) PunchHole(off, length int64) error {
	s := l.stats.Stripe()
	l.acquire(s)
	err := l.dev.PunchHole(off, length)
	s.Add(lcPunches, 1)
	l.wait(s, l.m.Punch)
	return err
}

// Sync implements Device.
func (l *Latency) Sync() error {
	s := l.stats.Stripe()
	l.acquire(s)
	err := l.dev.Sync()
	s.Add(lcSyncs, 1)
	l.wait(s, l.m.Sync)
	return err
}

// Size implements Device.
func (l *Latency) Size() int64 { return l.dev.Size() }

// Allocated implements Device.
func (l *Latency) Allocated() int64 { return l.dev.Allocated() }

// Close closes the wrapped device; it takes no modelled time.
func (l *Latency) Close() error {
	if l.pumped.Swap(false) {
		pumpStop()
	}
	return l.dev.Close()
}

// Stats returns a snapshot of the counters.
func (l *Latency) Stats() LatencyStats {
	var v [lcCount]uint64
	l.stats.SumAll(v[:])
	return LatencyStats{
		Reads: v[lcReads], Writes: v[lcWrites], Syncs: v[lcSyncs], Punches: v[lcPunches],
		BytesRead: v[lcBytesRead], BytesWritten: v[lcBytesWritten],
		Modelled: time.Duration(v[lcModelled]), Slept: time.Duration(v[lcSlept]), QueueWait: time.Duration(v[lcQueueWait]),
	}
}
