package zipsim_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

// Self-checking values for TestOffPageConcurrent. A body is a header,
// "OPCV", the row id, the version and the length, then bytes that follow
// from id and version: text for even versions, random bytes for odd ones,
// so that compressed chains vary in length too. A note is "id ver" padded
// to a length that follows from the version, a tag the version. A reader
// that sees a torn value, another row's or another version's, finds out.

const opcHeader = 4 + 8 + 8 + 8

// opcSizes cross the boundaries of every format: in the record, COMPACT's
// 768-byte prefix, the 2 KiB zip page, half a 16 KiB page, and chains of
// one to a dozen pages.
var opcSizes = []int{opcHeader, 200, 700, 767, 768, 769, 790, 1500, 3000, 8000, 8200, 17000, 40000, 150000}

// opcSize picks a body size: half the time one of opcSizes, half the time
// a long one, so that the rows outgrow the pool.
func opcSize(r *rand.Rand) int {
	if r.IntN(2) == 0 {
		return opcSizes[r.IntN(len(opcSizes))]
	}
	return []int{60000, 150000, 300000}[r.IntN(3)]
}

func opcBody(dst []byte, id int, ver uint64, n int) []byte {
	dst = append(dst[:0], "OPCV"...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(id))
	dst = binary.BigEndian.AppendUint64(dst, ver)
	dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	r := rand.New(rand.NewPCG(uint64(id), ver))
	if ver%2 == 0 {
		words := []string{"table ", "page ", "zip ", "<p>", "</p>\n", "compress ", "row "}
		for len(dst) < n {
			dst = append(dst, words[r.IntN(len(words))]...)
		}
		return dst[:n]
	}
	for len(dst)+8 <= n {
		dst = binary.LittleEndian.AppendUint64(dst, r.Uint64())
	}
	for len(dst) < n {
		dst = append(dst, byte(r.Uint32()))
	}
	return dst
}

func opcNote(id int, ver uint64) []byte {
	s := fmt.Sprintf("%d %d ", id, ver)
	return []byte(s + strings.Repeat(".", int(ver*37%uint64(300-len(s)))))
}

func opcRow(id int, ver uint64, size int) zipsim.Row {
	return zipsim.Row{zipsim.Int(int64(id)), zipsim.Bytes(opcBody(nil, id, ver, size)),
		zipsim.Bytes(opcNote(id, ver)), zipsim.String(strconv.FormatUint(ver, 10))}
}

// opcCheck verifies row, of which the columns in want were asked for (id,
// body, note, tag), and returns its version, or an error describing what
// is wrong.
func opcCheck(row zipsim.Row, want [4]bool, scratch *[]byte) (uint64, error) {
	if len(row) != 4 {
		return 0, fmt.Errorf("%d values", len(row))
	}
	id := int(row[0].Int())
	ver := uint64(0)
	seen := false
	agree := func(what string, v uint64) error {
		if seen && v != ver {
			return fmt.Errorf("row %d: %s has version %d, another column %d: a torn row", id, what, v, ver)
		}
		ver, seen = v, true
		return nil
	}
	for c := 1; c < 4; c++ {
		if !want[c] {
			if row[c].Bytes() != nil || row[c].String() != "<no value>" {
				return 0, fmt.Errorf("row %d: column %d was not asked for but holds %d bytes", id, c, len(row[c].Bytes()))
			}
		}
	}
	if want[1] {
		b := row[1].Bytes()
		if len(b) < opcHeader || string(b[:4]) != "OPCV" {
			return 0, fmt.Errorf("row %d: body of %d bytes has no header", id, len(b))
		}
		bid, bver, n := binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:]), binary.BigEndian.Uint64(b[20:])
		if bid != uint64(id) {
			return 0, fmt.Errorf("row %d: body of row %d", id, bid)
		}
		if n != uint64(len(b)) {
			return 0, fmt.Errorf("row %d: body version %d has %d bytes, its header says %d", id, bver, len(b), n)
		}
		*scratch = opcBody(*scratch, id, bver, int(n))
		if !bytes.Equal(*scratch, b) {
			i := 0
			for i < len(b) && b[i] == (*scratch)[i] {
				i++
			}
			return 0, fmt.Errorf("row %d: body version %d of %d bytes differs from byte %d", id, bver, n, i)
		}
		if err := agree("body", bver); err != nil {
			return 0, err
		}
	}
	if want[2] {
		var nid int
		var nver uint64
		if _, err := fmt.Sscanf(row[2].String(), "%d %d ", &nid, &nver); err != nil || nid != id || !bytes.Equal(opcNote(id, nver), row[2].Bytes()) {
			return 0, fmt.Errorf("row %d: note %.40q is not one of its notes", id, row[2].String())
		}
		if err := agree("note", nver); err != nil {
			return 0, err
		}
	}
	if want[3] {
		tver, err := strconv.ParseUint(row[3].String(), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("row %d: tag %q", id, row[3].String())
		}
		if err := agree("tag", tver); err != nil {
			return 0, err
		}
	}
	return ver, nil
}

// opcSpillRows rows of opcSpillBytes random bytes are twice the 1 MiB
// pool of TestOffPageConcurrent, compressed or not.
const opcSpillRows, opcSpillBytes = 7, 300_000

// TestOffPageConcurrent has writers update rows between every placement
// of their long column (in the record, COMPACT's prefix, chains of one to
// a dozen pages, text and random), delete and reinsert them, while
// readers Get, GetColumns, Scan, ScanColumns and ScanIndex the same rows
// through a pool much smaller than the chains: no reader may see a torn
// or foreign value, or get an error. At the end Check is clean, and after
// every row is deleted no BLOB page is left.
func TestOffPageConcurrent(t *testing.T) {
	const rows = 24
	writers, readers := 4, 4
	opsPerWriter, budget := 400, time.Second
	if raceEnabled {
		opsPerWriter, budget = 60, 2500*time.Millisecond
	}
	if testing.Short() {
		opsPerWriter, budget = opsPerWriter/4, budget/4
	}
	for _, f := range []struct {
		name string
		set  func(*zipsim.TableOptions)
	}{blobFormats[0], blobFormats[1], blobFormats[3], blobFormats[5]} {
		t.Run(f.name, func(t *testing.T) {
			st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: 1 << 20}})
			require.NoError(t, err)
			defer st.Close()
			o := blobTable()
			f.set(&o)
			tb, err := st.CreateTable(ctx, "docs", o)
			require.NoError(t, err)
			var version atomic.Uint64
			for id := range rows {
				require.NoError(t, tb.Insert(ctx, opcRow(id, version.Add(1), opcSizes[id%len(opcSizes)])))
			}
			// Long incompressible bodies on a few rows make the chains outgrow
			// the pool however little the writers get done before the
			// deadline (on a loaded machine under -race, a few dozen
			// operations), so that readers read evicted pages back.
			for id := range opcSpillRows {
				ver := version.Add(1)
				if ver%2 == 0 { // opcBody writes random bytes for odd versions
					ver = version.Add(1)
				}
				require.NoError(t, tb.Update(ctx, opcRow(id, ver, opcSpillBytes)))
			}

			var stop atomic.Bool
			var failures atomic.Int64
			fail := func(format string, args ...any) {
				if failures.Add(1) <= 10 {
					t.Errorf(format, args...)
				}
				stop.Store(true)
			}
			deadline := time.Now().Add(budget)
			var wg, readWG sync.WaitGroup
			var updates, deletes, inserts, reads, scanned atomic.Int64
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 99))
					for i := 0; i < opsPerWriter && !stop.Load() && time.Now().Before(deadline); i++ {
						id := r.IntN(rows)
						row := opcRow(id, version.Add(1), opcSize(r))
						switch op := r.IntN(10); {
						case op < 2:
							err := tb.Delete(ctx, zipsim.Int(int64(id)))
							if err != nil && !errors.Is(err, zipsim.ErrNotFound) {
								fail("writer %d: delete %d: %v", w, id, err)
							}
							deletes.Add(1)
						case op < 4:
							err := tb.Insert(ctx, row)
							if errors.Is(err, zipsim.ErrDuplicate) {
								err = tb.Update(ctx, row)
							}
							if err != nil && !errors.Is(err, zipsim.ErrNotFound) {
								fail("writer %d: insert %d: %v", w, id, err)
							}
							inserts.Add(1)
						default:
							err := tb.Update(ctx, row)
							if errors.Is(err, zipsim.ErrNotFound) {
								err = tb.Insert(ctx, row)
							}
							if err != nil && !errors.Is(err, zipsim.ErrDuplicate) {
								fail("writer %d: update %d: %v", w, id, err)
							}
							updates.Add(1)
						}
					}
				}()
			}
			var writing atomic.Bool
			writing.Store(true)
			bodyCols, err := tb.Columns("body")
			require.NoError(t, err)
			shortCols, err := tb.Columns("note", "TAG")
			require.NoError(t, err)
			all := [4]bool{true, true, true, true}
			for rd := range readers {
				readWG.Add(1)
				go func() {
					defer readWG.Done()
					r := rand.New(rand.NewPCG(uint64(rd), 7))
					var row zipsim.Row
					var scratch []byte
					check := func(what string, row zipsim.Row, want [4]bool) bool {
						if _, err := opcCheck(row, want, &scratch); err != nil {
							fail("reader %d: %s: %v", rd, what, err)
							return false
						}
						return true
					}
					scan := func(what string, want [4]bool, run func(fn func(zipsim.Row) bool) error) {
						last := int64(-1)
						err := run(func(row zipsim.Row) bool {
							scanned.Add(1)
							if row[0].Int() == last {
								fail("reader %d: %s: row %d twice", rd, what, last)
								return false
							}
							last = row[0].Int()
							return check(what, row, want) && !stop.Load()
						})
						if err != nil {
							fail("reader %d: %s: %v", rd, what, err)
						}
					}
					for writing.Load() && !stop.Load() {
						reads.Add(1)
						id := zipsim.Int(int64(r.IntN(rows)))
						var err error
						var ok bool
						switch r.IntN(8) {
						case 0, 1:
							row, ok, err = tb.Get(ctx, row, id)
							if err == nil && ok {
								check("get", row, all)
							}
						case 2:
							row, ok, err = tb.GetColumns(ctx, row, bodyCols, id)
							if err == nil && ok {
								check("get body", row, [4]bool{true, true})
							}
						case 3:
							row, ok, err = tb.GetColumns(ctx, row, shortCols, id)
							if err == nil && ok {
								check("get note, tag", row, [4]bool{true, false, true, true})
							}
						case 4:
							reverse := r.IntN(2) == 0
							scan("scan", all, func(fn func(zipsim.Row) bool) error {
								return tb.Scan(ctx, nil, nil, reverse, fn)
							})
						case 5:
							from := zipsim.Int(int64(r.IntN(rows)))
							scan("scan columns", [4]bool{true, true, false, true}, func(fn func(zipsim.Row) bool) error {
								cols, _ := tb.Columns("body", "tag")
								return tb.ScanColumns(ctx, cols, vals(from), nil, false, fn)
							})
						case 6:
							scan("scan columns short", [4]bool{true, false, true, true}, func(fn func(zipsim.Row) bool) error {
								return tb.ScanColumns(ctx, shortCols, nil, nil, true, fn)
							})
						case 7:
							reverse := r.IntN(2) == 0
							err = tb.ScanIndex(ctx, "note_i", nil, nil, reverse, func(row zipsim.Row) bool {
								scanned.Add(1)
								return check("scan note_i", row, all) && !stop.Load()
							})
						}
						if err != nil {
							fail("reader %d: %v", rd, err)
						}
					}
				}()
			}
			wg.Wait()
			writing.Store(false)
			readWG.Wait()
			t.Logf("%d updates, %d deletes, %d inserts; %d reads, %d rows scanned", updates.Load(), deletes.Load(), inserts.Load(), reads.Load(), scanned.Load())
			if t.Failed() {
				t.FailNow()
			}
			require.Positive(t, updates.Load())
			require.Positive(t, reads.Load())
			io := st.Metrics().Spaces[0].IO
			require.Positive(t, io.Reads, "pages were evicted and read again")
			t.Logf("%d pages read, %d written", io.Reads, io.Writes)

			// Quiet now: every row reads back whole, Check is clean.
			var scratch []byte
			live := 0
			for id := range rows {
				row, ok, err := tb.Get(ctx, nil, zipsim.Int(int64(id)))
				require.NoError(t, err)
				if ok {
					live++
					_, err := opcCheck(row, [4]bool{true, true, true, true}, &scratch)
					require.NoError(t, err)
				}
			}
			for _, err := range tb.Check(ctx) {
				t.Error(err)
			}
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.LessOrEqual(t, u.BlobValues, int64(live))
			require.GreaterOrEqual(t, u.BlobWaste, int64(0))
			require.GreaterOrEqual(t, u.BlobPages, u.BlobValues)
			require.GreaterOrEqual(t, u.BlobBytes(), u.BlobData)
			t.Logf("%d live rows: %s", live, strings.ReplaceAll(u.String(), "\n", "; "))

			for id := range rows {
				err := tb.Delete(ctx, zipsim.Int(int64(id)))
				if err != nil {
					require.ErrorIs(t, err, zipsim.ErrNotFound)
				}
			}
			require.Empty(t, tb.Check(ctx))
			u, err = tb.Space(ctx)
			require.NoError(t, err)
			require.Zero(t, u.BlobPages, "no BLOB page is left")
			require.Zero(t, u.BlobValues)
			require.Zero(t, u.BlobData)
			require.Positive(t, u.FreePages, "the chains' pages are free")
			n := 0
			require.NoError(t, tb.Scan(ctx, nil, nil, false, func(zipsim.Row) bool { n++; return true }))
			require.Zero(t, n)
		})
	}
}
