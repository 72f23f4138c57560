//go:build !linux || race

package bufpool

// newArena allocates an instance's frames on the Go heap where zipsim
// has no anonymous mapping to use (see arena_linux.go), and under the race
// detector, which sees only Go memory.
func newArena(_ []frame, n int) []byte { return make([]byte, n) }
