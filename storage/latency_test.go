package storage

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLatencySleepsLatencyPlusTransfer(t *testing.T) {
	r := &sleepRecorder{}
	m := LatencyModel{
		Read: 10 * time.Microsecond, Write: 20 * time.Microsecond, Sync: 5 * time.Millisecond, Punch: 3 * time.Microsecond,
		Bandwidth: 1_000_000, // 1 MB/s: 1 µs per byte
		Sleep:     r.sleep,
	}
	l := WithLatency(mustMemory(t), m)
	require.Equal(t, m.Read, l.Model().Read)
	require.NoError(t, l.WriteAt(make([]byte, 16384), 0))
	require.NoError(t, l.ReadAt(make([]byte, 1000), 0))
	require.NoError(t, l.ReadAt(make([]byte, 0), 0))
	require.NoError(t, l.Sync())
	require.NoError(t, l.PunchHole(0, 4096))
	want := []time.Duration{
		20*time.Microsecond + 16384*time.Microsecond,
		10*time.Microsecond + 1000*time.Microsecond,
		10 * time.Microsecond,
		5 * time.Millisecond,
		3 * time.Microsecond,
	}
	require.Equal(t, want, r.all())

	s := l.Stats()
	var total time.Duration
	for _, d := range want {
		total += d
	}
	require.Equal(t, LatencyStats{Reads: 2, Writes: 1, Syncs: 1, Punches: 1, BytesRead: 1000, BytesWritten: 16384, Modelled: total, Slept: s.Slept}, s)
	require.Less(t, s.Slept, time.Second, "the fake sleep takes no real time")

	require.NoError(t, l.ReadAt(make([]byte, 500), 0))
	d := l.Stats().Sub(s)
	require.Equal(t, uint64(1), d.Reads)
	require.Equal(t, uint64(500), d.BytesRead)
	require.Equal(t, 510*time.Microsecond, d.Modelled)
	require.Zero(t, d.Writes)

	require.Equal(t, int64(16384), l.Size())
	require.Equal(t, int64(3*4096), l.Allocated())
	_, isMem := l.Unwrap().(*Memory)
	require.True(t, isMem)
}

func TestLatencyZeroModelDoesNotSleep(t *testing.T) {
	called := false
	l := WithLatency(mustMemory(t), LatencyModel{Sleep: func(time.Duration) { called = true }})
	require.NoError(t, l.WriteAt(make([]byte, 100), 0))
	require.NoError(t, l.ReadAt(make([]byte, 100), 0))
	require.False(t, called)
	require.Equal(t, uint64(1), l.Stats().Reads)
}

func TestLatencyQueueDepthLimitsInFlight(t *testing.T) {
	const qd, ops = 3, 12
	var inFlight, peak, entered atomic.Int64
	release := make(chan struct{})
	sleep := func(time.Duration) {
		n := inFlight.Add(1)
		entered.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		inFlight.Add(-1)
	}
	l := WithLatency(mustMemory(t), LatencyModel{Read: time.Millisecond, QueueDepth: qd, Sleep: sleep})
	var wg sync.WaitGroup
	for range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, l.ReadAt(make([]byte, 10), 0))
		}()
	}
	require.Eventually(t, func() bool { return entered.Load() == qd }, 5*time.Second, time.Millisecond)
	// The others are queued: give them time to (wrongly) get in.
	time.Sleep(50 * time.Millisecond)
	require.Equal(t, int64(qd), entered.Load(), "only QueueDepth operations may be in flight")
	require.Equal(t, int64(qd), inFlight.Load())
	close(release)
	wg.Wait()
	require.Equal(t, int64(ops), entered.Load())
	require.Equal(t, int64(qd), peak.Load())
	s := l.Stats()
	require.Equal(t, uint64(ops), s.Reads)
	require.Positive(t, s.QueueWait, "queued operations waited for a slot")
	require.Equal(t, ops*time.Millisecond, s.Modelled)
}

func TestLatencyUnlimitedQueue(t *testing.T) {
	const ops = 20
	var entered atomic.Int64
	release := make(chan struct{})
	l := WithLatency(mustMemory(t), LatencyModel{Write: time.Millisecond, Sleep: func(time.Duration) { entered.Add(1); <-release }})
	var wg sync.WaitGroup
	for i := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, l.WriteAt([]byte{1}, int64(i)))
		}()
	}
	require.Eventually(t, func() bool { return entered.Load() == ops }, 5*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	require.Zero(t, l.Stats().QueueWait)
}

func TestLatencyRealSleep(t *testing.T) {
	l := WithLatency(mustMemory(t), LatencyModel{Read: 200 * time.Microsecond})
	start := time.Now()
	require.NoError(t, l.ReadAt(make([]byte, 1), 0))
	require.GreaterOrEqual(t, time.Since(start), 200*time.Microsecond)
	s := l.Stats()
	require.GreaterOrEqual(t, s.Slept, 200*time.Microsecond)
	require.Equal(t, 200*time.Microsecond, s.Modelled)
	require.NoError(t, l.Close())
}

func TestLatencyPresets(t *testing.T) {
	for name, m := range map[string]LatencyModel{"NVMe": NVMe, "SATASSD": SATASSD, "Disk7200": Disk7200, "PageCache": PageCache} {
		require.Positive(t, m.Read, name)
		require.Positive(t, m.Bandwidth, name)
		require.Nil(t, m.Sleep, name)
	}
	require.Equal(t, 1, Disk7200.QueueDepth)
	require.Zero(t, PageCache.QueueDepth)
	l := WithLatency(mustMemory(t), NVMe)
	require.Equal(t, 80*time.Microsecond+5461*time.Nanosecond, l.m.Read+l.transfer(16384))
	require.NoError(t, l.Close())
}

// TestLatencyTransferExact: transfer times are exact integer arithmetic for
// any length, including lengths and bandwidths where n×1e9 or
// remainder×1e9 would overflow an int64.
func TestLatencyTransferExact(t *testing.T) {
	cases := []struct {
		n    int64
		bw   int64
		want time.Duration
	}{
		{16384, 3_000_000_000, 5461},
		{10, 3, 3_333_333_333},
		{1 << 40, 1_000_000_000, 1 << 40},
		{1 << 40, 10_000_000_000, 109_951_162_777},
		{10_000_000_000 - 1, 10_000_000_000, 999_999_999},
		{1<<62 + 1, 1 << 62, time.Second},
		{1 << 62, 1 << 30, 1 << 32 * time.Second},
		{1, 0, 0},
		{0, 1, 0},
	}
	for _, c := range cases {
		l := WithLatency(mustMemory(t), LatencyModel{Bandwidth: c.bw})
		require.Equal(t, c.want, l.transfer(int(c.n)), "%d bytes at %d B/s", c.n, c.bw)
	}
}

// BenchmarkSleepOvershoot measures how much longer time.Sleep takes than
// asked on this machine, the figure quoted in LatencyModel's comment.
// With pump=on a timer pump runs, as it does for a Latency device that
// models sub-millisecond operations.
func BenchmarkSleepOvershoot(b *testing.B) {
	for _, on := range []bool{false, true} {
		for _, d := range []time.Duration{20 * time.Microsecond, 100 * time.Microsecond, time.Millisecond} {
			b.Run(fmt.Sprintf("pump=%v/d=%v", on, d), func(b *testing.B) {
				if on {
					pumpStart()
					defer pumpStop()
				}
				var over time.Duration
				n := 0
				sleep := time.Sleep
				if on {
					sleep = func(d time.Duration) { pumpedSleep(time.Sleep, d) }
				}
				for b.Loop() {
					start := time.Now()
					sleep(d)
					over += time.Since(start) - d
					n++
				}
				b.ReportMetric(float64(over.Nanoseconds())/float64(n), "overshoot-ns/op")
			})
		}
	}
}

// The timer pump keeps a 100 µs sleep of an otherwise idle process well
// under the runtime's 1 ms idle timer granularity, and stops with the last
// device that needs it.
func TestTimerPump(t *testing.T) {
	users := func() int {
		pump.mu.Lock()
		defer pump.mu.Unlock()
		return pump.users
	}
	before := users()
	l := WithLatency(mustMemory(t), LatencyModel{Read: 100 * time.Microsecond})
	require.Equal(t, before+1, users())
	require.True(t, l.pumped.Load())
	buf := make([]byte, 512)
	const n = 200
	for range n {
		require.NoError(t, l.ReadAt(buf, 0))
	}
	s := l.Stats()
	require.Equal(t, n*100*time.Microsecond, s.Modelled)
	// Without the pump these take about 1 ms each here; allow 5× the model
	// for a loaded test machine.
	require.Less(t, s.Slept, 5*s.Modelled, "%d reads of 100 µs slept %v", n, s.Slept)
	require.NoError(t, l.Close())
	require.Equal(t, before, users(), "Close gives the pump back")

	require.False(t, WithLatency(mustMemory(t), LatencyModel{Read: 2 * time.Millisecond}).pumped.Load(), "no pump for millisecond latencies")
	require.False(t, WithLatency(mustMemory(t), LatencyModel{Read: time.Microsecond, Sleep: func(time.Duration) {}}).pumped.Load(), "no pump for an injected Sleep")
}

func TestLatencyTablespaceOpenScanCostsNothing(t *testing.T) {
	r := &sleepRecorder{}
	mem := mustMemory(t)
	m := NVMe
	m.Sleep = r.sleep
	ts, err := Create(WithLatency(mem, m), Options{Compression: "zlib"})
	require.NoError(t, err)
	for p := uint32(1); p <= 20; p++ {
		require.NoError(t, ts.WritePage(p, sbPage(16384, 0, p, uint64(p))))
	}
	require.NoError(t, ts.Close())
	l := WithLatency(mem.Reopen(), m)
	ts, err = Open(l)
	require.NoError(t, err)
	require.Equal(t, int64(20), ts.Usage().Holes)
	s := l.Stats()
	require.Equal(t, uint64(2), s.Reads, "Open reads the header probe and slot; the slot scan bypasses the model")
	require.Equal(t, uint64(1), s.Writes, "the header marked open")
	require.Equal(t, uint64(1), s.Syncs)
	require.Equal(t, uint64(1), s.Punches, "the hole-punching probe")
	buf := make([]byte, 16384)
	require.NoError(t, ts.ReadPage(7, buf))
	require.Equal(t, uint64(3), l.Stats().Reads)
	require.NoError(t, ts.Close())
}
