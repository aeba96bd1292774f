//go:build race

package composition

// raceEnabled shrinks the heaviest generated tests under the race detector.
const raceEnabled = true
