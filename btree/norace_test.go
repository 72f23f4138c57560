//go:build !race

package btree

// raceEnabled says the tests run under the race detector, which makes the
// compression paths 20-50 times slower: long tests scale themselves down.
const raceEnabled = false
