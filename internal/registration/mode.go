package registration

// Mode is who may register (--registration).
type Mode string

// The modes.
const (
	Open  Mode = "open"  // anyone
	Token Mode = "token" // the bearer of an initial access token
	Off   Mode = "off"   // nobody: the endpoint answers 404
)
