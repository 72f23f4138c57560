//go:build !linux

package sim

// t8Extents cannot count extents off Linux (no FIEMAP).
func t8Extents(string) (int64, bool) { return 0, false }
