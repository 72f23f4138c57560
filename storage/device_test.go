package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deviceKind makes fresh devices of one kind for the conformance suite.
type deviceKind struct {
	name string
	new  func(t testing.TB) Device
	// exactAlloc: Allocated changes by exactly the blocks written/punched.
	exactAlloc bool
}

// sleepRecorder is a fake Sleep that records the durations asked for.
type sleepRecorder struct {
	mu sync.Mutex
	d  []time.Duration
}

func (r *sleepRecorder) sleep(d time.Duration) {
	r.mu.Lock()
	r.d = append(r.d, d)
	r.mu.Unlock()
}

func (r *sleepRecorder) all() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.d...)
}

func newTestFile(t testing.TB, opts FileOptions) *File {
	t.Helper()
	f, err := OpenFile(filepath.Join(t.TempDir(), "t.ibd"), opts)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func deviceKinds() []deviceKind {
	return []deviceKind{
		{name: "memory", exactAlloc: true, new: func(t testing.TB) Device { return mustMemory(t) }},
		{name: "file", new: func(t testing.TB) Device { return newTestFile(t, FileOptions{}) }},
		{name: "latency", exactAlloc: true, new: func(t testing.TB) Device {
			r := &sleepRecorder{}
			return WithLatency(mustMemory(t), LatencyModel{Read: time.Microsecond, Write: 2 * time.Microsecond, Bandwidth: 1e9, QueueDepth: 4, Sleep: r.sleep})
		}},
	}
}

func pattern(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32()) | 1 // never zero, so holes are visible
	}
	return b
}

func readBack(t testing.TB, d Device, off int64, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xEE // ReadAt must overwrite everything
	}
	require.NoError(t, d.ReadAt(b, off))
	return b
}

func TestDeviceConformance(t *testing.T) {
	for _, k := range deviceKinds() {
		t.Run("dev="+k.name, func(t *testing.T) {
			t.Run("read-after-write", func(t *testing.T) {
				d := k.new(t)
				require.Zero(t, d.Size())
				p := pattern(10000, 1)
				require.NoError(t, d.WriteAt(p, 1234))
				require.Equal(t, int64(11234), d.Size())
				require.Equal(t, p, readBack(t, d, 1234, len(p)))
				require.Equal(t, make([]byte, 1234), readBack(t, d, 0, 1234))
				// Overwrite a middle part across a block boundary.
				q := pattern(5000, 2)
				require.NoError(t, d.WriteAt(q, 3000))
				copy(p[3000-1234:], q)
				require.Equal(t, p, readBack(t, d, 1234, len(p)))
				require.Equal(t, int64(11234), d.Size())
				require.NoError(t, d.WriteAt(nil, 50000), "an empty write is allowed")
			})
			t.Run("zeros-past-end-and-in-gaps", func(t *testing.T) {
				d := k.new(t)
				p := pattern(100, 3)
				require.NoError(t, d.WriteAt(p, 0))
				require.NoError(t, d.WriteAt(p, 1<<20))
				require.Equal(t, int64(1<<20+100), d.Size())
				require.Equal(t, make([]byte, 1<<20-100), readBack(t, d, 100, 1<<20-100))
				got := readBack(t, d, 1<<20+50, 1000)
				require.Equal(t, p[50:], got[:50])
				require.Equal(t, make([]byte, 950), got[50:])
				require.Equal(t, make([]byte, 64), readBack(t, d, 5<<20, 64))
			})
			t.Run("punch-hole", func(t *testing.T) {
				d := k.new(t)
				p := pattern(64<<10, 4)
				require.NoError(t, d.WriteAt(p, 0))
				require.NoError(t, d.Sync())
				before := d.Allocated()
				require.GreaterOrEqual(t, before, int64(64<<10))
				err := d.PunchHole(4096, 32<<10)
				if errors.Is(err, ErrPunchUnsupported) {
					t.Fatalf("the filesystem under %s cannot punch holes (%v); zipsim's transparent compression tests need one that can (ext4, XFS, btrfs, tmpfs)", os.TempDir(), err)
				}
				require.NoError(t, err)
				require.NoError(t, d.Sync())
				after := d.Allocated()
				if k.exactAlloc {
					require.Equal(t, before-32<<10, after)
				} else {
					require.LessOrEqual(t, after, before-32<<10, "allocated %d before, %d after punching 32 KiB", before, after)
				}
				require.Equal(t, int64(64<<10), d.Size(), "punching keeps the size")
				want := append([]byte(nil), p...)
				clear(want[4096 : 4096+32<<10])
				require.Equal(t, want, readBack(t, d, 0, len(p)))

				// An unaligned punch zeroes without freeing whole blocks.
				require.NoError(t, d.PunchHole(100, 200))
				clear(want[100:300])
				require.Equal(t, want, readBack(t, d, 0, len(p)))
				if k.exactAlloc {
					require.Equal(t, after, d.Allocated())
				}
				// Punching past the end changes nothing.
				require.NoError(t, d.PunchHole(1<<20, 8192))
				require.Equal(t, int64(64<<10), d.Size())
				// Rewriting the hole allocates again.
				require.NoError(t, d.WriteAt(p[4096:4096+8192], 4096))
				copy(want[4096:], p[4096:4096+8192])
				require.Equal(t, want, readBack(t, d, 0, len(p)))
				require.NoError(t, d.Sync())
				if k.exactAlloc {
					require.Equal(t, after+8192, d.Allocated())
				}
			})
			t.Run("bad-arguments", func(t *testing.T) {
				d := k.new(t)
				require.Error(t, d.ReadAt(make([]byte, 1), -1))
				require.Error(t, d.WriteAt(make([]byte, 1), -1))
				require.Error(t, d.PunchHole(-1, 10))
				require.Error(t, d.PunchHole(0, -10))
			})
			t.Run("closed", func(t *testing.T) {
				d := k.new(t)
				require.NoError(t, d.WriteAt([]byte{1, 2, 3}, 0))
				require.NoError(t, d.Close())
				require.ErrorIs(t, d.ReadAt(make([]byte, 3), 0), ErrClosed)
				require.ErrorIs(t, d.WriteAt([]byte{1}, 0), ErrClosed)
				require.ErrorIs(t, d.PunchHole(0, 1), ErrClosed)
				require.ErrorIs(t, d.Sync(), ErrClosed)
				require.ErrorIs(t, d.Close(), ErrClosed)
				require.Equal(t, int64(3), d.Size())
				require.Positive(t, d.Allocated())
			})
			t.Run("concurrent", func(t *testing.T) {
				d := k.new(t)
				const workers, region, rounds = 8, 64 << 10, 60
				var wg sync.WaitGroup
				errs := make(chan error, workers*2)
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						base := int64(w) * region
						for r := range rounds {
							p := pattern(region/2, uint64(w*1000+r))
							off := base + int64(r%3)*4096
							if err := d.WriteAt(p, off); err != nil {
								errs <- err
								return
							}
							got := make([]byte, len(p))
							if err := d.ReadAt(got, off); err != nil {
								errs <- err
								return
							}
							if !bytes.Equal(got, p) {
								errs <- fmt.Errorf("worker %d round %d: read back differs", w, r)
								return
							}
							if r%4 == 3 {
								if err := d.PunchHole(off, region/4); err != nil {
									errs <- err
									return
								}
								if err := d.ReadAt(got[:region/4], off); err != nil {
									errs <- err
									return
								}
								if !bytes.Equal(got[:region/4], make([]byte, region/4)) {
									errs <- fmt.Errorf("worker %d round %d: hole not zero", w, r)
									return
								}
							}
							_ = d.Size()
							_ = d.Allocated()
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				require.Equal(t, int64(workers-1)*region+2*4096+region/2, d.Size())
			})
		})
	}
}

func TestMemoryReopenKeepsData(t *testing.T) {
	m := mustMemoryBS(t, 512)
	require.Equal(t, 512, m.BlockSize())
	p := pattern(3000, 9)
	require.NoError(t, m.WriteAt(p, 100))
	require.Equal(t, int64(7*512), m.Allocated(), "bytes 100..3100 touch blocks 0..6")
	require.NoError(t, m.Close())
	require.True(t, m.Closed())
	require.ErrorIs(t, m.ReadAt(make([]byte, 1), 0), ErrClosed)
	require.Same(t, m, m.Reopen())
	require.False(t, m.Closed())
	require.Equal(t, p, readBack(t, m, 100, len(p)))
	m.Reopen() // harmless on an open Memory
	require.NoError(t, m.Sync())
}

func TestMemoryClone(t *testing.T) {
	m := mustMemory(t)
	p := pattern(10000, 10)
	require.NoError(t, m.WriteAt(p, 0))
	c := m.Clone()
	require.NoError(t, m.WriteAt(make([]byte, 10000), 0))
	require.NoError(t, m.PunchHole(0, 8192))
	require.Equal(t, p, readBack(t, c, 0, len(p)))
	require.Equal(t, int64(3*4096), c.Allocated())
	require.Equal(t, int64(10000), c.Size())
	require.NoError(t, c.WriteAt([]byte{1}, 20000))
	require.Equal(t, int64(10000), m.Size())
}

func TestMemoryBlockSizeValidation(t *testing.T) {
	for _, bs := range []int{-1, 100, 1000, 256, 2 << 20} {
		_, err := NewMemory(MemoryOptions{BlockSize: bs})
		require.EqualError(t, err, fmt.Sprintf("storage: MemoryOptions.BlockSize %d: use 0 (4096) or a power of two from 512 to 1048576", bs))
	}
	require.Equal(t, 4096, mustMemory(t).BlockSize())
}

func TestFileReopenAndRemove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.ibd")
	f, err := OpenFile(path, FileOptions{})
	require.NoError(t, err)
	require.Equal(t, path, f.Path())
	p := pattern(20000, 12)
	require.NoError(t, f.WriteAt(p, 0))
	require.NoError(t, f.Close())
	require.Positive(t, f.Allocated(), "Allocated works after Close")

	f, err = OpenFile(path, FileOptions{NoSync: true})
	require.NoError(t, err)
	require.Equal(t, int64(20000), f.Size())
	require.Equal(t, p, readBack(t, f, 0, len(p)))
	require.NoError(t, f.Sync())
	took, err := f.Remove()
	require.NoError(t, err)
	require.Positive(t, took)
	_, err = os.Stat(path)
	require.True(t, os.IsNotExist(err))
	require.ErrorIs(t, f.Close(), ErrClosed)

	_, err = OpenFile(t.TempDir(), FileOptions{})
	require.Error(t, err, "a directory is not a device")
}

// TestMemoryMaxSize: writes and punches past MaxMemorySize are errors, not
// an attempt to allocate a chunk table up to them.
func TestMemoryMaxSize(t *testing.T) {
	m := mustMemory(t)
	err := m.WriteAt([]byte{1}, 1<<62)
	require.EqualError(t, err, "storage: Memory write at offset 4611686018427387904, length 1: past the largest Memory device, 70368744177664 bytes (64 TiB, 2^32 pages of 16 KiB)")
	require.ErrorContains(t, m.PunchHole(1<<62, 4096), "punch hole at offset 4611686018427387904, length 4096: past the largest Memory device")
	require.Zero(t, m.Size())
	require.Zero(t, m.Allocated())
	require.Equal(t, make([]byte, 10), readBack(t, m, 1<<62, 10), "reads past the end are zeros, however far")

	// Up to the limit works; 1 MiB blocks keep the chunk table small.
	m = mustMemoryBS(t, 1<<20)
	require.Error(t, m.WriteAt([]byte{1, 2}, MaxMemorySize-1), "a write that crosses the limit")
	require.Error(t, m.PunchHole(MaxMemorySize-4096, 4097), "a punch that crosses the limit")
	require.NoError(t, m.WriteAt([]byte{7}, MaxMemorySize-1))
	require.Equal(t, int64(MaxMemorySize), m.Size())
	require.Equal(t, []byte{7}, readBack(t, m, MaxMemorySize-1, 1))
	require.NoError(t, m.PunchHole(MaxMemorySize-1<<20, 1<<20))
	require.Zero(t, m.Allocated())
	require.Len(t, *m.dir.Load(), int(m.maxSegs()), "the chunk table stops at the limit")
}

func TestFileBlockSize(t *testing.T) {
	f := newTestFile(t, FileOptions{})
	bs := f.BlockSize()
	require.Positive(t, bs)
	require.Zero(t, bs&(bs-1), "a power of two")
	ts, err := Create(f, Options{Compression: "zlib"})
	require.NoError(t, err)
	require.Equal(t, bs, ts.Options().FSBlockSize, "the space takes the file's block size")
}
