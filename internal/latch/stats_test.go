package latch

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStatsSub(t *testing.T) {
	prev := Stats{Name: "a", Locks: 2, Acquisitions: 10, Contended: 2, ReadAcquisitions: 5,
		ReadContended: 1, Wait: time.Second, ReadWait: 100 * time.Millisecond,
		MaxWait: time.Millisecond, Hold: 3 * time.Second, MaxHold: time.Millisecond}
	cur := Stats{Name: "a", Locks: 3, Acquisitions: 25, Contended: 7, ReadAcquisitions: 9,
		ReadContended: 1, Wait: 4 * time.Second, ReadWait: 300 * time.Millisecond,
		MaxWait: 2 * time.Millisecond, Hold: 2 * time.Second, MaxHold: 5 * time.Millisecond}
	require.Equal(t, Stats{Name: "a", Locks: 3, Acquisitions: 15, Contended: 5, ReadAcquisitions: 4,
		ReadWait: 200 * time.Millisecond, Wait: 3 * time.Second,
		MaxWait: 2 * time.Millisecond, MaxHold: 5 * time.Millisecond}, cur.Sub(prev))
}

func TestSnapshotSub(t *testing.T) {
	r := NewRegistry(Options{})
	var a, b Mutex
	a.Init(r, "a")
	for range 5 {
		a.Lock()
		a.Unlock()
	}
	prev := r.Snapshot()
	b.Init(r, "b")
	for range 3 {
		a.Lock()
		a.Unlock()
		b.Lock()
		b.Unlock()
	}
	cur := r.Snapshot()
	d := cur.Sub(prev)
	require.Equal(t, prev.At, d.Start)
	require.Equal(t, cur.At, d.At)
	require.Equal(t, r.start, cur.Start)
	ra, _ := d.Get("a")
	rb, _ := d.Get("b")
	require.Equal(t, uint64(3), ra.Acquisitions)
	require.Equal(t, uint64(3), rb.Acquisitions)
	require.Equal(t, 1, rb.Locks)

	// A zero prev leaves the snapshot as it is.
	require.Equal(t, cur, cur.Sub(Snapshot{}))
}

func TestWaitShare(t *testing.T) {
	s := Snapshot{Rows: []Stats{{Name: "LRU_list_mutex", Wait: 6 * time.Second}}}
	// 6 s of waiting by 8 threads over 2 s of wall time: 6/16.
	require.InDelta(t, 0.375, s.WaitShare("LRU_list_mutex", 8, 2*time.Second), 1e-12)
	require.Zero(t, s.WaitShare("missing", 8, time.Second))
	require.Zero(t, s.WaitShare("LRU_list_mutex", 0, time.Second))
	require.Zero(t, s.WaitShare("LRU_list_mutex", 8, 0))
	require.Zero(t, Stats{}.ContentionPct())
	require.InDelta(t, 25, Stats{Acquisitions: 3, ReadAcquisitions: 1, ReadContended: 1}.ContentionPct(), 1e-12)
}

func TestTable(t *testing.T) {
	s := Snapshot{Rows: []Stats{
		{Name: "LRU_list_mutex", Instances: 2, Locks: 2, Acquisitions: 1000, Contended: 400,
			Wait: 1500 * time.Millisecond, MaxWait: 2500 * time.Microsecond,
			Hold: 800 * time.Millisecond, MaxHold: 1200 * time.Microsecond},
		{Name: "block_lock", Locks: 16384, ReadAcquisitions: 5000, ReadContended: 5,
			Wait: time.Millisecond, ReadWait: time.Millisecond},
	}}
	out := s.Table(4, time.Second)
	for _, want := range []string{"LOCKS\n", "NAME", "LOCKS", "ACQUISITIONS", "CONTENDED",
		"CONTENDED_PCT", "READ_ACQUISITIONS", "READ_CONTENDED", "WAIT_S", "READ_WAIT_S",
		"WAIT_SHARE", "MAX_WAIT_US", "HOLD_S", "MAX_HOLD_US",
		"LRU_list_mutex", "block_lock", "16384", "40.00", "1.500000", "37.5%", "2500.0",
		"0.800000", "1200.0", "0.10", "wait share = wait / (4 threads × 1.000s)"} {
		require.Contains(t, out, want)
	}
	require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 8)

	r := NewRegistry(Options{})
	var m Mutex
	m.Init(r, "the_mutex")
	m.Lock()
	m.Unlock()
	str := r.Snapshot().String()
	require.Contains(t, str, "the_mutex")
	require.Contains(t, str, "LOCKS")
}
