package czlib

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// diffScript compresses each record of the input file with Python's zlib
// (the C library) and writes the streams back, each prefixed by its length.
const diffScript = `
import struct, sys, zlib
if zlib.ZLIB_RUNTIME_VERSION != "1.2.13":
    sys.exit("zlib " + zlib.ZLIB_RUNTIME_VERSION)
src = open(sys.argv[1], "rb").read()
out = bytearray()
i = 0
while i < len(src):
    level, wbits, mem, n = struct.unpack_from("<iiiI", src, i)
    i += 16
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem)
    z = c.compress(src[i:i+n]) + c.flush()
    i += n
    out += struct.pack("<I", len(z)) + z
open(sys.argv[2], "wb").write(out)
`

// TestDiffPython compares random inputs at random settings (all levels 1-9,
// windowBits 8-15, memLevel 1-9) with C zlib through python3, which this
// project's machines have with zlib 1.2.13: 300 cases by default (a few
// seconds, a fresh seed each run unless CZLIB_DIFF_SEED is set), more with
//
//	CZLIB_DIFF=2000 go test -run TestDiffPython ./compress/internal/czlib/
//
// It skips only where python3's zlib is missing or not 1.2.13; testdata's
// golden streams check the same property without python.
func TestDiffPython(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CZLIB_DIFF"))
	if n <= 0 {
		n = 300
	}
	seed, err := strconv.ParseUint(os.Getenv("CZLIB_DIFF_SEED"), 10, 64)
	if err != nil {
		seed = rand.Uint64()
	}
	t.Logf("CZLIB_DIFF_SEED=%d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	type tcase struct {
		level, wbits, mem int
		in                []byte
	}
	cases := make([]tcase, n)
	var file []byte
	for i := range cases {
		c := tcase{1 + r.IntN(9), 8 + r.IntN(8), 1 + r.IntN(9), nil}
		size := r.IntN(70000)
		switch r.IntN(4) {
		case 0:
			size = r.IntN(600)
		case 1:
			size = 16384
		}
		if r.IntN(3) == 0 {
			c.in = englishText(&xorshift{r.Uint64() | 1}, nil, size)
		} else if r.IntN(2) == 0 {
			c.in = sysbenchRows(r.Uint64()|1, size/193+1)[:size]
		} else {
			c.in = randomInput(r, size)
		}
		cases[i] = c
		file = binary.LittleEndian.AppendUint32(file, uint32(c.level))
		file = binary.LittleEndian.AppendUint32(file, uint32(c.wbits))
		file = binary.LittleEndian.AppendUint32(file, uint32(c.mem))
		file = binary.LittleEndian.AppendUint32(file, uint32(len(c.in)))
		file = append(file, c.in...)
	}
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(inPath, file, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("python3", "-c", diffScript, inPath, outPath).CombinedOutput(); err != nil {
		t.Skipf("python3 with zlib 1.2.13 not usable: %v %s", err, out)
	}
	want, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, c := range cases {
		m := int(binary.LittleEndian.Uint32(want))
		z := want[4 : 4+m]
		want = want[4+m:]
		w, err := NewWriter(c.level, c.wbits, c.mem)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Compress(nil, c.in); !bytes.Equal(got, z) {
			bad++
			t.Errorf("case %d: level %d windowBits %d memLevel %d, %d bytes in: got %d bytes, zlib %d",
				i, c.level, c.wbits, c.mem, len(c.in), len(got), len(z))
		}
	}
	t.Logf("%d of %d cases identical to zlib 1.2.13", n-bad, n)
}
