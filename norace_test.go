//go:build !race

package zipsim_test

// raceEnabled says the tests run under the race detector, which makes
// compression 20-50 times slower: long tests scale themselves down.
const raceEnabled = false
