package storage

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/page"
)

// stamp fills in the FIL header of a page image and sets its checksum, as
// the buffer pool does before a page goes to storage.
func stamp(b []byte, spaceID, pageNo uint32, typ page.Type, lsn uint64) []byte {
	f := page.Fil(b)
	f.SetPageNo(pageNo)
	f.SetPrev(page.FilNull)
	f.SetNext(page.FilNull)
	f.SetLSN(lsn)
	f.SetType(typ)
	f.SetAux(0)
	f.SetSpaceID(spaceID)
	page.SetChecksum(b)
	return b
}

// sbPage is a sysbench-like leaf page, which compresses about 2:1.
func sbPage(size int, spaceID, pageNo uint32, seed uint64) []byte {
	return stamp(sbdata.PageImage(size, seed), spaceID, pageNo, page.TypeIndex, seed)
}

// randomPage is a page of random bytes, which does not compress.
func randomPage(size int, spaceID, pageNo uint32, seed uint64) []byte {
	return stamp(pattern(size, seed), spaceID, pageNo, page.TypeIndex, seed)
}

// spaceDevice makes a device for a tablespace and reopens it after Close,
// the model of a restart.
type spaceDevice struct {
	name   string
	fresh  func(t testing.TB) Device
	reopen func(t testing.TB, d Device) Device
}

func spaceDevices() []spaceDevice {
	reopenMemory := func(t testing.TB, d Device) Device { return d.(*Memory).Reopen() }
	return []spaceDevice{
		{
			name:   "memory",
			fresh:  func(t testing.TB) Device { return mustMemory(t) },
			reopen: reopenMemory,
		},
		{
			name: "file",
			fresh: func(t testing.TB) Device {
				f, err := OpenFile(filepath.Join(t.TempDir(), "t.ibd"), FileOptions{})
				require.NoError(t, err)
				t.Cleanup(func() { f.Close() })
				return f
			},
			reopen: func(t testing.TB, d Device) Device {
				f, err := OpenFile(d.(*File).Path(), FileOptions{})
				require.NoError(t, err)
				t.Cleanup(func() { f.Close() })
				return f
			},
		},
		{
			// 1 KiB blocks, so that 4 KiB pages can be compressed too.
			name:   "memory-1k",
			fresh:  func(t testing.TB) Device { return mustMemoryBS(t, 1024) },
			reopen: reopenMemory,
		},
	}
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

func mustMemory(t testing.TB) *Memory { return mustMemoryBS(t, 0) }

func mustMemoryBS(t testing.TB, bs int) *Memory {
	m, err := NewMemory(MemoryOptions{BlockSize: bs})
	require.NoError(t, err)
	return m
}

// has reports whether slot p is in the set.
func (ss *slotSet) has(p uint32) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.words[p/64]&(uint64(1)<<(p%64)) != 0
}
