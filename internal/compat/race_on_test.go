//go:build race

package compat

// raceEnabled shrinks the heaviest generated tests under the race detector.
const raceEnabled = true
