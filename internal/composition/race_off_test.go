//go:build !race

package composition

const raceEnabled = false
