package stripe

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestConcurrentSums(t *testing.T) {
	c := New(3)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10000; i++ {
				c.Add(0, 1)
				c.Add(2, 3)
				s := c.Stripe()
				s.Add(1, 2)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, uint64(80000), c.Sum(0))
	require.Equal(t, uint64(160000), c.Sum(1))
	require.Equal(t, uint64(240000), c.Sum(2))
	all := make([]uint64, 3)
	c.SumAll(all)
	require.Equal(t, []uint64{80000, 160000, 240000}, all)
}

func TestStripesStartOnCacheLines(t *testing.T) {
	c := New(20)
	require.Zero(t, c.stride%wordsPerLine)
	require.GreaterOrEqual(t, c.stride, 20)
	for s := 0; s <= int(c.mask); s++ {
		require.Zero(t, uintptr(unsafe.Pointer(&c.words[s*c.stride]))%cacheLine)
	}
}

func TestAddDoesNotAllocate(t *testing.T) {
	c := New(2)
	require.Zero(t, testing.AllocsPerRun(1000, func() { c.Add(1, 1); c.Stripe().Add(0, 1) }))
}

func BenchmarkAdd(b *testing.B) {
	c := New(4)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(1, 1)
		}
	})
}
