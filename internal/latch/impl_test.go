package latch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// innoImpls are the InnoDB implementations, which every test here runs.
var innoImpls = []Impl{Builtin, Plugin}

// forImpls runs f as a subtest for each InnoDB implementation.
func forImpls(t *testing.T, f func(t *testing.T, r *Registry)) {
	for _, impl := range innoImpls {
		t.Run("impl="+impl.String(), func(t *testing.T) { f(t, NewRegistry(Options{Impl: impl})) })
	}
}

func TestImplRegistry(t *testing.T) {
	require.Equal(t, Go, NewRegistry(Options{}).Impl())
	require.Equal(t, Go, NewRegistry(Options{Impl: Builtin, Disabled: true}).Impl())
	require.Equal(t, Go, (*Registry)(nil).Impl())
	require.Equal(t, "Impl(9)", Impl(9).String())
	for _, impl := range innoImpls {
		r := NewRegistry(Options{Impl: impl})
		require.Equal(t, impl, r.Impl())
		var m Mutex
		var rw RWMutex
		m.Init(r, "m")
		rw.Init(r, "rw")
		require.NotNil(t, m.ib)
		require.Equal(t, impl == Builtin, rw.x.ib != nil)
		require.Equal(t, impl == Plugin, rw.x.pl != nil)
		// The sync array's own mutex is an ordinary counted lock, as
		// every InitOS lock is.
		require.Equal(t, modeCounted, r.arr.mu.mode)
		_, ok := r.Snapshot().Get("sync_array_mutex")
		require.True(t, ok)
		var os Mutex
		os.InitOS(r, "os")
		require.Nil(t, os.ib)
		os.Lock()
		os.Unlock()
		st, ok := r.Snapshot().Get("os")
		require.True(t, ok)
		require.EqualValues(t, 1, st.Acquisitions)
		require.Panics(t, func() { os.InitOS(r, "os") })
	}
	var plain Mutex
	plain.InitOS(nil, "os")
	require.Equal(t, modePlain, plain.mode)
	require.Equal(t, builtinSpin, NewRegistry(Options{Impl: Builtin}).arr.spinPolicy)
	require.Equal(t, pluginSpin, NewRegistry(Options{Impl: Plugin}).arr.spinPolicy)
}

// TestInnoMutexExclusion runs goroutines through one InnoDB mutex with a
// non-atomic counter and an occupancy check: both must show mutual
// exclusion, and with more goroutines than Ps some must have gone through
// the spin and the sync array.
func TestInnoMutexExclusion(t *testing.T) { forImpls(t, testMutexExclusion) }

func testMutexExclusion(t *testing.T, r *Registry) {
	var m Mutex
	m.Init(r, "m")
	const goroutines, each = 8, 3000
	var inside atomic.Int32
	n := 0
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range each {
				m.Lock()
				if inside.Add(1) != 1 {
					t.Error("two holders")
				}
				n++
				if i%100 == 0 {
					time.Sleep(10 * time.Microsecond) // long enough to exhaust a spin
				}
				inside.Add(-1)
				m.Unlock()
			}
		})
	}
	wg.Wait()
	require.Equal(t, goroutines*each, n)
	s := row(t, r, "m")
	require.Equal(t, uint64(goroutines*each), s.Acquisitions)
	require.Positive(t, s.Contended)
	arr := row(t, r, "sync_array_mutex")
	require.Positive(t, arr.Acquisitions, "no thread slept in the sync array")
	require.Positive(t, r.Snapshot().OSWaits)
	require.Zero(t, r.arr.cells, "cells left reserved")
}

// TestInnoMutexOSWait holds the mutex far longer than a spin, so the
// waiter must sleep in the sync array and be woken by the release.
func TestInnoMutexOSWait(t *testing.T) { forImpls(t, testMutexOSWait) }

func testMutexOSWait(t *testing.T, r *Registry) {
	const sleep = 20 * time.Millisecond
	var m Mutex
	m.Init(r, "m")
	m.Lock()
	done := make(chan struct{})
	go func() {
		m.Lock()
		m.Unlock()
		close(done)
	}()
	waitFor(t, func() bool { return m.ib.waiters.Load() == 1 })
	time.Sleep(sleep)
	m.Unlock()
	<-done
	s := row(t, r, "m")
	require.Equal(t, uint64(1), s.Contended)
	require.GreaterOrEqual(t, s.Wait, sleep)
	r.arr.mu.Lock()
	require.Zero(t, r.arr.cells)
	r.arr.mu.Unlock()
	snap := r.Snapshot()
	require.Equal(t, uint64(1), snap.OSWaits)
	require.Equal(t, uint64(1), snap.Signals)
	require.Contains(t, snap.String(), "OS waits 1, signal count 1")
	require.Equal(t, uint64(0), snap.Sub(snap).OSWaits)
	require.True(t, m.TryLock())
	m.Unlock()
}

// TestInnoRWExclusion mixes readers and writers on one InnoDB rw-lock and
// checks that no reader ever overlaps a writer and writers never overlap
// each other.
func TestInnoRWExclusion(t *testing.T) { forImpls(t, testRWExclusion) }

func testRWExclusion(t *testing.T, r *Registry) {
	var l RWMutex
	l.Init(r, "rw")
	var readers, writers atomic.Int32
	var wg sync.WaitGroup
	const each = 2000
	for g := range 8 {
		wg.Go(func() {
			for i := range each {
				if (g+i)%5 == 0 {
					l.Lock()
					if writers.Add(1) != 1 || readers.Load() != 0 {
						t.Error("writer overlaps")
					}
					if i%50 == 0 {
						time.Sleep(20 * time.Microsecond)
					} else {
						runtime.Gosched()
					}
					if writers.Load() != 1 || readers.Load() != 0 {
						t.Error("writer overlapped while holding")
					}
					writers.Add(-1)
					l.Unlock()
					continue
				}
				l.RLock()
				readers.Add(1)
				for range 2 { // check again after letting others run
					if writers.Load() != 0 {
						t.Error("reader overlaps a writer")
					}
					runtime.Gosched()
				}
				readers.Add(-1)
				l.RUnlock()
			}
		})
	}
	wg.Wait()
	s := row(t, r, "rw")
	require.Equal(t, uint64(8*each/5), s.Acquisitions)
	require.Positive(t, s.Contended+s.ReadContended)
	if l.x.ib != nil {
		require.Equal(t, rwNotLocked, l.x.ib.writer.Load())
		require.Zero(t, l.x.ib.readers.Load())
	} else {
		require.Equal(t, int32(xLockDecr), l.x.pl.word.Load())
	}
	require.Zero(t, r.arr.cells)
}

// TestInnoRWWaitEx checks the writer's claim: a writer that finds a
// reader sets WAIT_EX, which turns new readers away until it has had the
// lock, and the last reader's release wakes it.
func TestInnoRWWaitEx(t *testing.T) { forImpls(t, testRWWaitEx) }

func testRWWaitEx(t *testing.T, r *Registry) {
	var l RWMutex
	l.Init(r, "rw")
	l.RLock()
	got := make(chan struct{})
	go func() {
		l.Lock()
		close(got)
		time.Sleep(5 * time.Millisecond)
		l.Unlock()
	}()
	waitFor(t, func() bool {
		if l.x.ib != nil {
			return l.x.ib.writer.Load() == rwWaitEx
		}
		return l.x.pl.word.Load() == -1
	})
	require.False(t, l.TryRLock(), "a claimed lock admitted a reader")
	require.False(t, l.TryLock())
	waitFor(t, func() bool { return r.Snapshot().OSWaits == 1 }) // the writer sleeps
	l.RUnlock()
	select { // a lost wake-up fails here instead of hanging
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer was not woken by the last reader's release")
	}
	start := time.Now()
	l.RLock() // waits for the writer's 5 ms
	require.GreaterOrEqual(t, time.Since(start), 4*time.Millisecond)
	l.RUnlock()
	require.True(t, l.TryLock())
	l.Unlock()
	s := row(t, r, "rw")
	require.Equal(t, uint64(2), s.Acquisitions) // the writer's and TryLock's
	require.Equal(t, uint64(1), s.Contended)
	require.Equal(t, uint64(1), s.ReadContended)
}

func TestInnoMisuse(t *testing.T) {
	forImpls(t, func(t *testing.T, r *Registry) {
		var m Mutex
		var l, l2 RWMutex
		m.Init(r, "m")
		l.Init(r, "rw")
		l2.Init(r, "rw")
		require.Panics(t, m.Unlock)
		require.Panics(t, l.Unlock)
		require.Panics(t, l.RUnlock)
		l2.Lock()
		require.Panics(t, l2.RUnlock)
		// The checks come before any change: the locks still work.
		require.True(t, l.TryLock())
		l.Unlock()
		l2.Unlock()
		require.True(t, l2.TryRLock())
		l2.RUnlock()
	})
}
