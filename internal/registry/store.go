package registry

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Store is typeward's durable registry: tools and their immutable versions,
// approved server snapshots, and stored compositions with their latest
// validation. Every implementation passes storetest.RunRegistry and returns
// the package's sentinels (wrapped): ErrNotFound, ErrConflict, ErrAmbiguous,
// ErrInvalidDeclaration (a *DeclarationError), ErrInvalidComposition. A
// refused call changes nothing.
//
// Tool names are "server/tool" or, when exactly one server declares the
// tool (a tool declared without a server counts as one), the bare name.
type Store interface {
	Resolver // ResolveTool compiles the schemas of the version asked for

	// DeclareTool registers a tool for server ("" for none) after Declare's
	// checks. Schemas with the digest of the current version change no
	// version (Created false) but still update title, description,
	// annotations and _meta; other schemas create version N+1. Declaring a
	// tool that an approved snapshot removed brings it back.
	DeclareTool(ctx context.Context, server string, t Tool) (Declared, error)
	// Tool is the current declaration of one tool.
	Tool(ctx context.Context, name string) (ToolRecord, error)
	// ListTools lists every current tool sorted by server then name.
	ListTools(ctx context.Context) ([]ToolRecord, error)
	// ToolVersion is one version; 0 is the current one.
	ToolVersion(ctx context.Context, name string, version int) (ToolVersion, error)
	// ListVersions lists every version of a tool, oldest first.
	ListVersions(ctx context.Context, name string) ([]ToolVersion, error)

	// ImportSnapshot stores a server's tools/list as given, problems and
	// all, so that it can be compared and, once reviewed, approved.
	ImportSnapshot(ctx context.Context, server, source string, tools []Tool) (Snapshot, error)
	// Snapshot returns one imported snapshot of a server.
	Snapshot(ctx context.Context, server string, id int64) (Snapshot, error)
	// ApprovedSnapshot is the snapshot approved last for a server.
	ApprovedSnapshot(ctx context.Context, server string) (Snapshot, error)
	// ApproveSnapshot makes a snapshot the registry's content for its server
	// in one transaction: every tool declared (new versions where schemas
	// changed), tools of the server that it does not list removed. A
	// snapshot with any declaration problem is refused with every problem
	// (ErrInvalidDeclaration); approving a snapshot older than the approved
	// one is ErrConflict.
	ApproveSnapshot(ctx context.Context, server string, id int64) (Approval, error)

	// PutComposition stores a composition definition (a JSON object). An
	// unchanged definition (by canonical digest) keeps its validation.
	PutComposition(ctx context.Context, name string, definition json.RawMessage) (Composition, error)
	// Composition is one stored composition with its latest validation.
	Composition(ctx context.Context, name string) (Composition, error)
	// Definition is a stored composition's definition: what the
	// composition validator flattens sub-composition references with.
	Definition(ctx context.Context, name string) (json.RawMessage, error)
	// ListCompositions lists every composition sorted by name.
	ListCompositions(ctx context.Context) ([]Composition, error)
	// RecordValidation records the result of validating a composition's
	// definition; ErrConflict when the definition changed meanwhile
	// (Validation.DefinitionDigest no longer matches).
	RecordValidation(ctx context.Context, name string, v Validation) error
	// StaleCompositions lists, sorted by name, the compositions never
	// validated, changed since, validated against a tool version that is
	// no longer current (or a tool since removed), or against a definition
	// of a referenced stored composition that has changed since (or been
	// stored where none was).
	StaleCompositions(ctx context.Context) ([]Composition, error)
	// Freshness reports, for every composition, when it was last validated
	// against when the tools it uses last changed.
	Freshness(ctx context.Context) ([]Freshness, error)
	// CompositionFreshness is one composition's Freshness, reading only
	// what that composition's validation used.
	CompositionFreshness(ctx context.Context, name string) (Freshness, error)

	// Watch registers fn to be told, after commit, of every change this
	// store makes to how a tool resolves: a new version, a metadata update,
	// a revival or a removal; never a no-op declaration. A Cache in front
	// of the store passes its Invalidate here.
	Watch(fn func(Change))
}

// ToolRecord is a tool's current declaration.
type ToolRecord struct {
	Server      string
	Declaration Tool // as declared last, schemas verbatim
	Version     int  // current version
	Digest      string
	CreatedAt   time.Time // first declared
	UpdatedAt   time.Time // last declaration that changed anything
}

// QualifiedName is "server/name", or the bare name without a server.
func (r ToolRecord) QualifiedName() string { return QualifiedName(r.Server, r.Declaration.Name) }

// ToolVersion is one immutable version of a tool's schemas.
type ToolVersion struct {
	Server       string
	Name         string
	Version      int
	Digest       string // VersionDigest of the two schemas
	InputDigest  string
	OutputDigest string          // "" without an outputSchema
	InputSchema  json.RawMessage // verbatim
	OutputSchema json.RawMessage // verbatim, nil without one
	CreatedAt    time.Time
}

// QualifiedName is "server/name", or the bare name without a server.
func (v ToolVersion) QualifiedName() string { return QualifiedName(v.Server, v.Name) }

// Declared is what DeclareTool did.
type Declared struct {
	Version ToolVersion // the current version after the call
	Created bool        // a new version was created
}

// Snapshot is one server's tools/list as imported, in the order listed.
type Snapshot struct {
	Server     string
	ID         int64
	Source     string // where it came from: a file name, a URL, a command
	Digest     string // over the canonical ordered list
	Tools      []Tool
	ImportedAt time.Time
	ApprovedAt time.Time // zero until approved
}

// Approval is what approving a snapshot did to the registry.
type Approval struct {
	Snapshot Snapshot
	Declared []Declared // in snapshot order
	Removed  []string   // qualified names, sorted
}

// Composition is a stored composition and its latest validation.
type Composition struct {
	Name       string
	Definition json.RawMessage
	Digest     string // canonical digest of Definition
	UpdatedAt  time.Time
	Validation *Validation // nil until validated
}

// Validation is the outcome of validating one composition definition.
type Validation struct {
	DefinitionDigest string          // the definition validated
	Valid            bool            // no ERROR issue
	Issues           json.RawMessage // the validator's issue list, as JSON
	Tools            []ToolRef       // the versions validated against
	// Compositions are the stored compositions the definition references
	// (directly or through another), with the digest of the definition
	// flattened: one changed or removed since makes the validation stale.
	Compositions []CompositionRef
	ValidatedAt  time.Time
}

// CompositionRef names the definition of a stored composition that a
// validation flattened; Digest is "" when none was stored under Name.
type CompositionRef struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// ToolRef names one version of a tool.
type ToolRef struct {
	Server  string `json:"server,omitempty"`
	Name    string `json:"name"`
	Version int    `json:"version"`
	Digest  string `json:"digest"`
	// Pinned: the composition named this version; newer versions do not
	// make it stale (versions are immutable), a removal does.
	Pinned bool `json:"pinned,omitempty"`
}

// QualifiedName is "server/name", or the bare name without a server.
func (r ToolRef) QualifiedName() string { return QualifiedName(r.Server, r.Name) }

// Freshness compares a composition's last validation with the last change
// of the tools it was validated against: the server exports the lag and
// re-checks or refuses stale compositions.
type Freshness struct {
	Composition string
	ValidatedAt time.Time // zero: never validated
	// ToolsChangedAt is the newest version (or removal) of any tool the
	// last validation used, or change of a stored composition it
	// referenced that made it stale; zero without a validation.
	ToolsChangedAt time.Time
	Stale          bool
}

// Age is how long ago the composition was validated (0 if never).
func (f Freshness) Age(now time.Time) time.Duration {
	if f.ValidatedAt.IsZero() {
		return 0
	}
	return now.Sub(f.ValidatedAt)
}

// ErrChanged is the registry's cross-replica guard refusing a validation
// that read another registry generation than the current one (on
// Postgres: registry_generation_is, migration 0016, run in the
// transaction that records the token, whose Append wraps this): a tool it
// was validated against may have changed since, on another replica, with
// the notification on its way, lost, or unheard by a dead connection. The
// token is withheld; the next validation reads afresh.
var ErrChanged = errors.New("registry: changed since the composition was validated")

// Change says that resolving a tool may now give another answer: a new
// version (Version > 0), a metadata update, or a removal (Version 0).
type Change struct {
	Server  string
	Name    string
	Version int
	// Generation is the registry generation the change's commit made, on
	// a store that counts them (Postgres); 0 when unknown.
	Generation int64
}
