package czlib

// Deterministic test inputs. testdata/gen.py implements the same generators
// line for line; change both together (and rerun gen.py) or the golden
// digests stop matching.

// xorshift is Marsaglia's xorshift64 (13, 7, 17), trivially portable.
type xorshift struct{ s uint64 }

func (r *xorshift) next() uint64 {
	x := r.s
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	r.s = x
	return x
}

func (r *xorshift) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *xorshift) byte() byte { return byte(r.next() >> 56) }

// digitGroups appends groups of 11 random digits separated by '-', as in
// sysbench's c and pad columns.
func digitGroups(r *xorshift, b []byte, groups int) []byte {
	for g := 0; g < groups; g++ {
		if g > 0 {
			b = append(b, '-')
		}
		for i := 0; i < 11; i++ {
			b = append(b, byte('0'+r.next()%10))
		}
	}
	return b
}

// sysbenchRow appends one sbtest-like record: 5 header bytes, id and k as
// 4-byte big-endian integers, c CHAR(120) and pad CHAR(60), space padded.
func sysbenchRow(r *xorshift, b []byte, id uint32) []byte {
	for i := 0; i < 5; i++ {
		b = append(b, r.byte())
	}
	k := uint32(r.next() >> 40)
	b = append(b, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
	b = append(b, byte(k>>24), byte(k>>16), byte(k>>8), byte(k))
	b = digitGroups(r, b, 10) // 119 chars
	b = append(b, ' ')
	b = digitGroups(r, b, 5) // 59 chars
	b = append(b, ' ')
	return b
}

func sysbenchRows(seed uint64, rows int) []byte {
	r := &xorshift{seed}
	var b []byte
	for i := 0; i < rows; i++ {
		b = sysbenchRow(r, b, uint32(1000+i))
	}
	return b
}

var words = []string{
	"the", "of", "and", "to", "in", "a", "is", "that", "for", "it",
	"as", "was", "with", "be", "by", "on", "not", "he", "this", "are",
	"or", "his", "from", "at", "which", "but", "have", "an", "had", "they",
	"you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
	"been", "if", "more", "when", "will", "would", "who", "so", "no", "page",
	"compression", "database", "storage", "engine", "buffer", "index", "record", "transaction",
}

// englishText appends sentences of random words until b has n bytes.
func englishText(r *xorshift, b []byte, n int) []byte {
	for len(b) < n {
		cnt := 5 + r.intn(11)
		for i := 0; i < cnt; i++ {
			w := words[r.intn(len(words))]
			if i == 0 {
				b = append(b, w[0]-'a'+'A')
				b = append(b, w[1:]...)
			} else {
				b = append(b, ' ')
				b = append(b, w...)
			}
		}
		if r.intn(4) == 0 {
			b = append(b, ".\n"...)
		} else {
			b = append(b, ". "...)
		}
	}
	return b[:n]
}

// mixed builds n bytes of chunks of random bytes, text, rows, zeros and
// copies of earlier data (some farther back than any window).
func mixed(seed uint64, n int) []byte {
	r := &xorshift{seed}
	var b []byte
	id := uint32(1)
	for len(b) < n {
		switch r.intn(5) {
		case 0:
			m := 100 + r.intn(4000)
			for i := 0; i < m; i++ {
				b = append(b, r.byte())
			}
		case 1:
			b = englishText(r, b, len(b)+200+r.intn(6000))
		case 2:
			m := 1 + r.intn(40)
			for i := 0; i < m; i++ {
				b = sysbenchRow(r, b, id)
				id++
			}
		case 3:
			m := r.intn(3000)
			for i := 0; i < m; i++ {
				b = append(b, 0)
			}
		case 4:
			if len(b) == 0 {
				continue
			}
			dist := 1 + r.intn(min(len(b), 70000))
			m := 3 + r.intn(2000)
			for i := 0; i < m; i++ {
				b = append(b, b[len(b)-dist])
			}
		}
	}
	return b[:n]
}

func randomBytes(seed uint64, n int) []byte {
	r := &xorshift{seed}
	b := make([]byte, n)
	for i := range b {
		b[i] = r.byte()
	}
	return b
}

// goldenInputs names the inputs of testdata/golden.txt.
func goldenInput(name string) []byte {
	switch name {
	case "empty":
		return []byte{}
	case "one":
		return []byte("x")
	case "short":
		return []byte("Hello, hello, hello! InnoDB compresses its pages with zlib, hello.\n")
	case "rows1":
		return sysbenchRows(1, 68)
	case "rows2":
		return sysbenchRows(2, 68)
	case "repeat":
		b := make([]byte, 0, 20000)
		for len(b) < 20000 {
			b = append(b, "the quick brown fox "...)
		}
		return b
	case "zeros":
		return make([]byte, 16384)
	case "random":
		return randomBytes(3, 20000)
	case "text":
		return englishText(&xorshift{4}, nil, 24000)
	case "mixed":
		return mixed(5, 300000)
	}
	panic("unknown input " + name)
}

var goldenInputNames = []string{"empty", "one", "short", "rows1", "rows2", "repeat", "zeros", "random", "text", "mixed"}
