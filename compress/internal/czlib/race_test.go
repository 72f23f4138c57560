//go:build race

package czlib

// raceEnabled says the tests run under the race detector, which makes
// compression many times slower: the largest golden cases scale down.
const raceEnabled = true
