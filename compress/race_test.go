//go:build race

package compress

// raceEnabled is true under -race, where sync.Pool drops items at random
// to expose misuse; allocation counts are then meaningless.
const raceEnabled = true
