//go:build race

package bufpool

// raceEnabled says the tests run under the race detector, under which the
// arena lives on the Go heap (arena_other.go) so that races on page bytes
// are found.
const raceEnabled = true
