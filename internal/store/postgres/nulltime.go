package postgres

import "time"

// A time that may be unset is a nullable column: NULL is the zero time.

// nullTime stores an unset (zero) time as NULL.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// timeOrZero reads a nullable time column back: NULL is the zero time,
// any other in UTC like every time the stores return.
func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
