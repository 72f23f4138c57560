//go:build !linux

package bufpool

// newArena allocates an instance's frames on the Go heap where zipsim
// has no anonymous mapping to use (see arena_linux.go).
func newArena(_ []frame, n int) []byte { return make([]byte, n) }
