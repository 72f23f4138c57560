package latch

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// row takes a snapshot and returns the row named name, which must exist.
func row(t *testing.T, r *Registry, name string) Stats {
	t.Helper()
	s, ok := r.Snapshot().Get(name)
	require.True(t, ok, "no row %q", name)
	return s
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "condition never held")
		time.Sleep(100 * time.Microsecond)
	}
}

// TestMutexCountsExact hammers one lock from many goroutines, each
// yielding while it holds the lock so that the others find it taken.
func TestMutexCountsExact(t *testing.T) {
	const goroutines, iters = 8, 2000
	r := NewRegistry(Options{})
	var m Mutex
	m.Init(r, "test_mutex")
	shared := 0
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range iters {
				m.Lock()
				shared++
				if i%8 == 0 {
					runtime.Gosched()
				}
				m.Unlock()
			}
		})
	}
	wg.Wait()
	require.Equal(t, goroutines*iters, shared)

	s := row(t, r, "test_mutex")
	require.Equal(t, 1, s.Locks)
	require.Equal(t, uint64(goroutines*iters), s.Acquisitions)
	require.LessOrEqual(t, s.Contended, s.Acquisitions)
	require.Positive(t, s.Contended)
	require.Positive(t, s.Wait)
	require.LessOrEqual(t, s.MaxWait, s.Wait)
	require.Zero(t, s.ReadAcquisitions)
	require.Positive(t, s.Hold)
	require.LessOrEqual(t, s.MaxHold, s.Hold)
}

// TestMutexForcedContention blocks one goroutine behind a lock held
// across a sleep: exactly one contended acquisition, waiting at least as
// long as the sleep.
func TestMutexForcedContention(t *testing.T) {
	const sleep = 20 * time.Millisecond
	r := NewRegistry(Options{})
	var m Mutex
	m.Init(r, "forced")
	m.Lock()
	done := make(chan struct{})
	go func() {
		m.Lock()
		m.Unlock()
		close(done)
	}()
	// The waiter counts itself contended after reading its start time,
	// so from here on the sleep lies inside its wait.
	waitFor(t, func() bool { return row(t, r, "forced").Contended == 1 })
	time.Sleep(sleep)
	m.Unlock()
	<-done

	s := row(t, r, "forced")
	require.Equal(t, uint64(2), s.Acquisitions)
	require.Equal(t, uint64(1), s.Contended)
	require.GreaterOrEqual(t, s.Wait, sleep)
	require.Equal(t, s.Wait, s.MaxWait)
	require.InDelta(t, 50, s.ContentionPct(), 1e-9)
	// The first acquisition is sampled and was held across the sleep.
	require.GreaterOrEqual(t, s.MaxHold, sleep)
}

// TestHoldEstimate holds a lock 250 µs per acquisition, 2,560 times: the
// forty sampled holds, scaled by 64, must estimate the total time held
// (measured around each hold, preemptions included) within 30%. One
// preemption inside a sampled hold moves the estimate 64 times as much,
// so on a noisy machine the run is retried up to three times.
func TestHoldEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("busy-waits 640 ms per attempt")
	}
	const n, hold = 2560, 250 * time.Microsecond
	for attempt := 1; ; attempt++ {
		r := NewRegistry(Options{})
		var m Mutex
		m.Init(r, "held")
		var total time.Duration
		for range n {
			m.Lock()
			t0 := time.Now()
			for time.Since(t0) < hold {
			}
			total += time.Since(t0)
			m.Unlock()
		}
		s := row(t, r, "held")
		require.Equal(t, uint64(n), s.Acquisitions)
		require.GreaterOrEqual(t, s.MaxHold, hold)
		if s.Hold >= total*7/10 && s.Hold <= total*13/10 {
			return
		}
		t.Logf("attempt %d: estimated %v, held %v in total", attempt, s.Hold, total)
		require.Less(t, attempt, 3, "hold estimate off by more than 30%% three times")
	}
}

func TestMutexTryLock(t *testing.T) {
	r := NewRegistry(Options{})
	var m Mutex
	m.Init(r, "try")
	require.True(t, m.TryLock())
	require.False(t, m.TryLock())
	m.Unlock()
	s := row(t, r, "try")
	require.Equal(t, uint64(1), s.Acquisitions)
	require.Zero(t, s.Contended)
}

func TestRWMutexCounters(t *testing.T) {
	const sleep = 10 * time.Millisecond
	r := NewRegistry(Options{})
	var m RWMutex
	m.Init(r, "index_lock")

	// Uncontended: three shared, two exclusive, one failed try each way.
	for range 3 {
		m.RLock()
		m.RUnlock()
	}
	m.Lock()
	require.False(t, m.TryRLock())
	require.False(t, m.TryLock())
	m.Unlock()
	require.True(t, m.TryLock())
	m.Unlock()
	require.True(t, m.TryRLock())
	m.RUnlock()
	s := row(t, r, "index_lock")
	require.Equal(t, uint64(4), s.ReadAcquisitions)
	require.Equal(t, uint64(2), s.Acquisitions)
	require.Zero(t, s.ReadContended)
	require.Zero(t, s.Contended)

	// A reader behind a writer.
	m.Lock()
	done := make(chan struct{})
	go func() {
		m.RLock()
		m.RUnlock()
		close(done)
	}()
	waitFor(t, func() bool { return row(t, r, "index_lock").ReadContended == 1 })
	time.Sleep(sleep)
	m.Unlock()
	<-done

	// A writer behind a reader.
	m.RLock()
	done = make(chan struct{})
	go func() {
		m.Lock()
		m.Unlock()
		close(done)
	}()
	waitFor(t, func() bool { return row(t, r, "index_lock").Contended == 1 })
	time.Sleep(sleep)
	m.RUnlock()
	<-done

	s = row(t, r, "index_lock")
	require.Equal(t, uint64(6), s.ReadAcquisitions)
	require.Equal(t, uint64(1), s.ReadContended)
	require.Equal(t, uint64(4), s.Acquisitions)
	require.Equal(t, uint64(1), s.Contended)
	require.GreaterOrEqual(t, s.ReadWait, sleep)
	require.GreaterOrEqual(t, s.Wait, s.ReadWait+sleep)
	require.GreaterOrEqual(t, s.MaxWait, sleep)
	require.InDelta(t, 20, s.ContentionPct(), 1e-9)
}

func TestRWMutexConcurrent(t *testing.T) {
	const goroutines, iters = 6, 2000
	r := NewRegistry(Options{})
	var m RWMutex
	m.Init(r, "rw")
	shared := 0
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range iters {
				if (g+i)%4 == 0 {
					m.Lock()
					shared++
					runtime.Gosched()
					m.Unlock()
				} else {
					m.RLock()
					_ = shared
					m.RUnlock()
				}
			}
		})
	}
	wg.Wait()
	s := row(t, r, "rw")
	// Overlapping readers may lose uncontended read counts (see the doc);
	// exclusive acquisitions are exact.
	require.LessOrEqual(t, s.Acquisitions+s.ReadAcquisitions, uint64(goroutines*iters))
	require.Equal(t, uint64(shared), s.Acquisitions)
	require.LessOrEqual(t, s.Contended, s.Acquisitions)
	require.LessOrEqual(t, s.ReadContended, s.ReadAcquisitions)
	require.LessOrEqual(t, s.ReadWait, s.Wait)
}

func TestDisabledAndNil(t *testing.T) {
	for name, r := range map[string]*Registry{
		"disabled": NewRegistry(Options{Disabled: true}),
		"nil":      nil,
	} {
		t.Run(name, func(t *testing.T) {
			var m Mutex
			var rw RWMutex
			m.Init(r, "m")
			rw.Init(r, "rw")
			var wg sync.WaitGroup
			n := 0
			for range 4 {
				wg.Go(func() {
					for range 1000 {
						m.Lock()
						n++
						m.Unlock()
						rw.RLock()
						rw.RUnlock()
						rw.Lock()
						rw.Unlock()
					}
				})
			}
			wg.Wait()
			require.Equal(t, 4000, n)
			require.True(t, m.TryLock())
			m.Unlock()
			require.Empty(t, r.Snapshot().Rows)
			require.Nil(t, r.Class("m"))
		})
	}
}

func TestZeroValueIsPlain(t *testing.T) {
	var m Mutex
	var rw RWMutex
	m.Lock()
	m.Unlock()
	rw.RLock()
	rw.RUnlock()
	rw.Lock()
	rw.Unlock()
	require.Zero(t, m.acq.load())
	require.Zero(t, rw.racq.load())
}

func TestInitPanics(t *testing.T) {
	r := NewRegistry(Options{})
	var m Mutex
	m.Init(r, "a")
	require.Panics(t, func() { m.Init(r, "a") })
	var p Mutex
	p.Init(nil, "a")
	require.Panics(t, func() { p.Init(nil, "a") })
	require.Panics(t, func() { new(RWMutex).Init(r, "") })

	// A bare name cannot also be a group.
	require.Panics(t, func() { new(Mutex).Init(r, "a#0") })
	new(Mutex).Init(r, "b#0")
	require.Panics(t, func() { new(Mutex).Init(r, "b") })
}

// TestClassesAndGroups registers instance classes and a class of many
// locks, mixing Mutex and RWMutex.
func TestClassesAndGroups(t *testing.T) {
	r := NewRegistry(Options{})
	lru := make([]Mutex, 12)
	for i := range lru {
		lru[i].Init(r, "LRU_list_mutex#"+itoa(i))
	}
	blocks := make([]RWMutex, 1000)
	for i := range blocks {
		blocks[i].Init(r, "block_lock")
	}
	var zip Mutex
	zip.Init(r, "zip_mutex")
	for i := range lru {
		for range i + 1 {
			lru[i].Lock()
			lru[i].Unlock()
		}
	}
	for i := range blocks {
		blocks[i].RLock()
		blocks[i].RUnlock()
		blocks[i].Lock()
		blocks[i].Unlock()
	}

	s := r.Snapshot()
	names := make([]string, len(s.Rows))
	for i, row := range s.Rows {
		names[i] = row.Name
	}
	want := []string{"LRU_list_mutex"}
	for i := range lru {
		want = append(want, "LRU_list_mutex#"+itoa(i))
	}
	want = append(want, "block_lock", "zip_mutex")
	require.Equal(t, want, names)

	total, ok := s.Get("LRU_list_mutex")
	require.True(t, ok)
	require.Equal(t, 12, total.Instances)
	require.Equal(t, 12, total.Locks)
	require.Equal(t, uint64(12*13/2), total.Acquisitions)
	one, _ := s.Get("LRU_list_mutex#10")
	require.Zero(t, one.Instances)
	require.Equal(t, uint64(11), one.Acquisitions)

	b, _ := s.Get("block_lock")
	require.Equal(t, 1000, b.Locks)
	require.Equal(t, uint64(1000), b.Acquisitions)
	require.Equal(t, uint64(1000), b.ReadAcquisitions)
	// Every lock has its first exclusive hold sampled.
	require.Positive(t, b.Hold)
	require.Equal(t, b, r.Class("block_lock").Stats())
	require.Equal(t, 1000, r.Class("block_lock").Len())
	require.Equal(t, "block_lock", r.Class("block_lock").Name())
	z, _ := s.Get("zip_mutex")
	require.Zero(t, z.Acquisitions)
	_, ok = s.Get("nope")
	require.False(t, ok)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestCompareNames(t *testing.T) {
	names := []string{"x#10", "x_y", "x#2", "x", "w", "x#a", "x#02", "#z"}
	rows := make([]Stats, len(names))
	for i, n := range names {
		rows[i].Name = n
	}
	sortRows(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r.Name)
	}
	require.Equal(t, []string{"#z", "w", "x", "x#02", "x#2", "x#10", "x#a", "x_y"}, got)
}

// TestLockOr: a free mutex is taken without calling onWait; a taken one
// calls it once, before waiting, and counts a contended acquisition with
// its wait, in every implementation.
func TestLockOr(t *testing.T) {
	for _, impl := range []Impl{Go, Builtin, Plugin} {
		t.Run("impl="+impl.String(), func(t *testing.T) {
			r := NewRegistry(Options{Impl: impl})
			var m Mutex
			m.Init(r, "m")
			require.False(t, m.LockOr(func() { t.Error("onWait on a free mutex") }))
			// onWait must run while m is still held: only then is m let go.
			blocked, done := make(chan struct{}), make(chan bool)
			go func() {
				done <- m.LockOr(func() { close(blocked) })
				m.Unlock()
			}()
			select {
			case <-blocked:
			case <-time.After(10 * time.Second):
				t.Fatal("onWait did not run before waiting")
			}
			m.Unlock()
			require.True(t, <-done)
			st, _ := r.Snapshot().Get("m")
			require.EqualValues(t, 2, st.Acquisitions)
			require.EqualValues(t, 1, st.Contended)
			require.Positive(t, st.Wait)
		})
	}
	var plain Mutex // never initialised: a plain lock
	plain.Lock()
	blocked, waited := make(chan struct{}), make(chan bool)
	go func() { waited <- plain.LockOr(func() { close(blocked) }); plain.Unlock() }()
	<-blocked
	plain.Unlock()
	require.True(t, <-waited)
}
