package registry

import (
	"context"
	"errors"
)

// Comparison is a snapshot and its drift from the approved snapshot of
// its server: what an operator reviews before approving.
type Comparison struct {
	Snapshot Snapshot
	// Approved is the snapshot compared with; nil when none is approved
	// yet, and every tool is then "added".
	Approved *Snapshot
	Drift    []Finding // never nil
}

// Compare reports snap against its server's approved snapshot.
func Compare(ctx context.Context, s Store, snap Snapshot) (Comparison, error) {
	c := Comparison{Snapshot: snap}
	var approved []Tool
	switch prev, err := s.ApprovedSnapshot(ctx, snap.Server); {
	case err == nil:
		c.Approved, approved = &prev, prev.Tools
	case !errors.Is(err, ErrNotFound):
		return Comparison{}, err
	}
	c.Drift = Drift(approved, snap.Tools)
	if c.Drift == nil {
		c.Drift = []Finding{}
	}
	return c, nil
}

// ImportAndCompare stores a server's tools/list as a snapshot, problems
// and all (they are drift findings, not errors), and compares it with the
// approved one.
func ImportAndCompare(ctx context.Context, s Store, server, source string, tools []Tool) (Comparison, error) {
	if server == "" {
		return Comparison{}, &DeclarationError{Problems: []Problem{{Code: CodeInvalidServer, Message: "a snapshot needs the server whose tools/list it is"}}}
	}
	if err := CheckServer(server); err != nil {
		return Comparison{}, err
	}
	snap, err := s.ImportSnapshot(ctx, server, source, tools)
	if err != nil {
		return Comparison{}, err
	}
	return Compare(ctx, s, snap)
}

// ImportFile is ImportAndCompare for a tools file in any shape
// ParseSnapshotFile reads, holding the server's list (ServerList).
func ImportFile(ctx context.Context, s Store, server, source string, data []byte) (Comparison, error) {
	lists, err := ParseSnapshotFile(data)
	if err != nil {
		return Comparison{}, err
	}
	tools, err := ServerList(lists, server)
	if err != nil {
		return Comparison{}, err
	}
	return ImportAndCompare(ctx, s, server, source, tools)
}

// ServerList picks one server's tools/list out of a tools file: its only
// list when that names the server or none (a plain tools/list), else the
// list naming the server.
func ServerList(lists []ServerTools, server string) ([]Tool, error) {
	if len(lists) == 1 && (lists[0].Server == "" || lists[0].Server == server) {
		return lists[0].Tools, nil
	}
	for _, l := range lists {
		if l.Server == server {
			return l.Tools, nil
		}
	}
	return nil, toolsFileErr("no tools/list of server %q in the file", server)
}

// ServerFinding is a drift finding with the server it concerns.
type ServerFinding struct {
	Server string `json:"server,omitempty"`
	Finding
}

// DriftByServer compares two tools files server by server: what `typeward
// tools check` gates CI on. Two files of one list each are compared
// whatever their names (a plain tools/list names none); otherwise servers
// match by name, and a server missing on one side has every tool added or
// removed.
func DriftByServer(approved, current []ServerTools) []ServerFinding {
	var findings []ServerFinding
	add := func(server string, fs []Finding) {
		for _, f := range fs {
			findings = append(findings, ServerFinding{Server: server, Finding: f})
		}
	}
	if len(approved) == 1 && len(current) == 1 {
		server := current[0].Server
		if server == "" {
			server = approved[0].Server
		}
		add(server, Drift(approved[0].Tools, current[0].Tools))
		return findings
	}
	byName := map[string][]Tool{}
	for _, s := range approved {
		byName[s.Server] = s.Tools
	}
	seen := map[string]bool{}
	for _, s := range current {
		seen[s.Server] = true
		add(s.Server, Drift(byName[s.Server], s.Tools))
	}
	for _, s := range approved {
		if !seen[s.Server] {
			add(s.Server, Drift(s.Tools, nil))
		}
	}
	return findings
}
