package clients

import "unicode"

// invisible reports a rune the consent page would not show as itself:
// Unicode format characters (bidi overrides and isolates, zero-width
// joiners) reorder or hide the name around them, and line and paragraph
// separators break it, so a host could be named as another.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}
