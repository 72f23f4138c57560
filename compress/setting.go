package compress

import (
	"fmt"
	"strconv"
	"strings"
)

// Algorithm names a compression format.
type Algorithm uint8

const (
	// Zlib is deflate in zlib framing (2-byte header, adler32 trailer), the
	// format InnoDB writes. It is the zero value so that the zero Setting is
	// InnoDB's default.
	Zlib Algorithm = iota
	// Deflate is raw deflate without framing or checksum; Facebook's 5.6
	// branch could write this to skip adler32.
	Deflate
	// Zstd is Zstandard, one frame per call, for comparison with zlib.
	Zstd
	// S2 is the S2 block format (a Snappy extension), a fast low-ratio
	// comparison point.
	S2
	// None copies bytes unchanged; a control that isolates codec cost.
	None
	// CZlib is Zlib as C zlib 1.2.13 writes it, byte for byte, with
	// InnoDB's stream parameters for 16 KiB pages (windowBits 14, memLevel
	// 9): the setting whose compressed sizes, and so page fits and failure
	// rates, are InnoDB's. klauspost's deflate (Zlib) is about three times faster
	// but writes sysbench pages 4-7% smaller than C zlib does.
	CZlib
)

// algorithmNames is indexed by Algorithm.
var algorithmNames = [...]string{Zlib: "zlib", Deflate: "deflate", Zstd: "zstd", S2: "s2", None: "none", CZlib: "czlib"}

// String returns the algorithm's lower-case name, or Algorithm(N) for a
// value that names no algorithm.
func (a Algorithm) String() string {
	if int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return "Algorithm(" + strconv.Itoa(int(a)) + ")"
}

// Setting is a codec and its level. The zero value is zlib level 6
// (InnoDB's default innodb_compression_level).
//
// Levels: zlib, deflate and czlib 1..9 (default 6); zstd 1..4, named fastest,
// default, better and best (default fastest); s2 1..3, where 1 is plain
// s2.Encode, 2 is better and 3 is best (default 1); none has only level 0.
type Setting struct {
	Algorithm Algorithm
	Level     int // 0 means the algorithm's default
}

// DefaultSetting is what InnoDB uses out of the box: zlib at
// innodb_compression_level=6.
var DefaultSetting = Setting{Algorithm: Zlib, Level: 6}

// levelInfo describes the levels one algorithm accepts.
type levelInfo struct {
	max   int      // highest level; levels run 1..max (none: max 0)
	def   int      // level used for 0
	names []string // names[l-1] is level l's name; nil when levels are numeric
}

var levels = [...]levelInfo{
	Zlib:    {max: 9, def: 6},
	Deflate: {max: 9, def: 6},
	Zstd:    {max: 4, def: 1, names: []string{"fastest", "default", "better", "best"}},
	S2:      {max: 3, def: 1, names: []string{"", "better", "best"}},
	None:    {max: 0, def: 0},
	CZlib:   {max: 9, def: 6},
}

// Canonical returns s with the algorithm's default level filled in for
// level 0. An invalid Setting is returned unchanged.
func (s Setting) Canonical() Setting {
	if int(s.Algorithm) < len(levels) && s.Level == 0 {
		s.Level = levels[s.Algorithm].def
	}
	return s
}

// Validate reports whether s names an algorithm and a level it accepts.
func (s Setting) Validate() error {
	if int(s.Algorithm) >= len(levels) {
		return fmt.Errorf("compress: unknown algorithm %d; allowed: %s", s.Algorithm, allowedSettings())
	}
	li := levels[s.Algorithm]
	if s.Level == 0 || (s.Level >= 1 && s.Level <= li.max) {
		return nil
	}
	return fmt.Errorf("compress: %s level %d is out of range; allowed: %s", s.Algorithm, s.Level, li.allowed(s.Algorithm))
}

// allowed describes the levels of one algorithm for error messages.
func (li levelInfo) allowed(a Algorithm) string {
	switch {
	case li.max == 0:
		return "only level 0"
	case li.names == nil:
		return fmt.Sprintf("levels 1..%d (0 means %d)", li.max, li.def)
	}
	var b strings.Builder
	for l := 1; l <= li.max; l++ {
		if l > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d=%q", l, Setting{Algorithm: a, Level: l}.String())
	}
	fmt.Fprintf(&b, " (0 means %d)", li.def)
	return "levels " + b.String()
}

// String returns the canonical text of s: "zlib:6", "deflate:1",
// "zstd:fastest", "s2", "s2:better", "none". ParseSetting reads it back.
// An invalid Setting prints as "algorithm:level" with the raw values.
func (s Setting) String() string {
	if s.Validate() != nil {
		return s.Algorithm.String() + ":" + strconv.Itoa(s.Level)
	}
	s = s.Canonical()
	li := levels[s.Algorithm]
	name := s.Algorithm.String()
	switch {
	case li.max == 0:
		return name
	case li.names == nil:
		return name + ":" + strconv.Itoa(s.Level)
	case li.names[s.Level-1] == "":
		return name
	default:
		return name + ":" + li.names[s.Level-1]
	}
}

// ParseSetting reads the text String produces, plus a bare algorithm name
// ("zlib", "deflate", "zstd", "s2", "none") for its default level and the
// numeric form of named levels ("zstd:1" is "zstd:fastest"). It
// ignores case and surrounding space and returns the canonical Setting. The
// error lists every accepted form.
func ParseSetting(text string) (Setting, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	name, level, hasLevel := strings.Cut(t, ":")
	for a, an := range algorithmNames {
		if name != an {
			continue
		}
		s := Setting{Algorithm: Algorithm(a)}
		li := levels[a]
		if !hasLevel {
			return s.Canonical(), nil
		}
		if l, err := strconv.Atoi(level); err == nil && l >= 1 && l <= li.max {
			s.Level = l
			return s.Canonical(), nil
		}
		for i, ln := range li.names {
			if ln != "" && level == ln {
				s.Level = i + 1
				return s, nil
			}
		}
		return Setting{}, fmt.Errorf("compress: bad %s level in setting %q; allowed: %s", an, text, allowedSettings())
	}
	return Setting{}, fmt.Errorf("compress: unknown setting %q; allowed: %s", text, allowedSettings())
}

// allowedSettings lists every accepted setting text for error messages.
func allowedSettings() string {
	return "zlib, zlib:1..zlib:9, deflate, deflate:1..deflate:9, " +
		"zstd, zstd:fastest, zstd:default, zstd:better, zstd:best (or zstd:1..zstd:4), " +
		"s2, s2:better, s2:best (or s2:1..s2:3), none, czlib, czlib:1..czlib:9"
}
