package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/registry"
)

// toolJSON is a tool's current declaration as the admin API shows it.
type toolJSON struct {
	Name        string        `json:"name"` // qualified
	Server      string        `json:"server,omitempty"`
	Version     int           `json:"version"`
	Digest      string        `json:"digest"`
	Declaration registry.Tool `json:"declaration"`
	CreatedAt   time.Time     `json:"created_at"`
	UpdatedAt   time.Time     `json:"updated_at"`
}

func toolOf(r registry.ToolRecord) toolJSON {
	return toolJSON{Name: r.QualifiedName(), Server: r.Server, Version: r.Version, Digest: r.Digest,
		Declaration: r.Declaration, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// versionJSON is one immutable version of a tool.
type versionJSON struct {
	Name         string          `json:"name"`
	Server       string          `json:"server,omitempty"`
	Version      int             `json:"version"`
	Digest       string          `json:"digest"`
	InputDigest  string          `json:"input_digest"`
	OutputDigest string          `json:"output_digest,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	CreatedAt    time.Time       `json:"created_at"`
}

func versionOf(v registry.ToolVersion) versionJSON {
	return versionJSON{Name: v.QualifiedName(), Server: v.Server, Version: v.Version, Digest: v.Digest,
		InputDigest: v.InputDigest, OutputDigest: v.OutputDigest, InputSchema: v.InputSchema,
		OutputSchema: v.OutputSchema, CreatedAt: v.CreatedAt}
}

func (a *Admin) listTools(w http.ResponseWriter, r *http.Request) {
	records, err := a.Registry.ListTools(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]toolJSON, len(records))
	for i, rec := range records {
		out[i] = toolOf(rec)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tools": out})
}

// putTool declares an MCP Tool object under the path's name: a bare name,
// or server/tool (the slash escaped as %2F) for a server's tool. The
// body's name, when given, must agree.
func (a *Admin) putTool(w http.ResponseWriter, r *http.Request) {
	server, name, _ := registry.SplitName(pathParam(r, "name"))
	var tool registry.Tool
	if err := readJSON(r, &tool, false); err != nil {
		a.fail(w, r, err)
		return
	}
	if tool.Name == "" {
		tool.Name = name
	}
	if tool.Name != name {
		a.fail(w, r, badRequest("the body names tool "+strconv.Quote(tool.Name)+" but the path names "+strconv.Quote(name)))
		return
	}
	declared, err := a.Registry.DeclareTool(r.Context(), server, tool)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if declared.Created {
		status = http.StatusCreated
	}
	writeJSON(w, status, map[string]any{"created": declared.Created, "version": versionOf(declared.Version)})
}

func (a *Admin) getTool(w http.ResponseWriter, r *http.Request) {
	rec, err := a.Registry.Tool(r.Context(), pathParam(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toolOf(rec))
}

func (a *Admin) listVersions(w http.ResponseWriter, r *http.Request) {
	versions, err := a.Registry.ListVersions(r.Context(), pathParam(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]versionJSON, len(versions))
	for i, v := range versions {
		out[i] = versionOf(v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"versions": out})
}

// snapshotJSON is an imported snapshot and how it differs from the
// approved one.
type snapshotJSON struct {
	Server     string             `json:"server"`
	ID         int64              `json:"id"`
	Source     string             `json:"source,omitempty"`
	Digest     string             `json:"digest"`
	Tools      int                `json:"tool_count"`
	ImportedAt time.Time          `json:"imported_at"`
	ApprovedAt time.Time          `json:"approved_at,omitzero"`
	ApprovedID int64              `json:"compared_with,omitempty"` // the approved snapshot's id
	Drift      []registry.Finding `json:"drift"`
}

// importSnapshot stores a server's tools/list (any shape
// registry.ParseSnapshotFile reads) and reports its drift from the
// approved snapshot.
func (a *Admin) importSnapshot(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	cmp, err := registry.ImportFile(r.Context(), a.Registry, pathParam(r, "server"), r.URL.Query().Get("source"), body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, snapshotOf(cmp))
}

func (a *Admin) getSnapshot(w http.ResponseWriter, r *http.Request) {
	id, err := snapshotID(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	snap, err := a.Registry.Snapshot(r.Context(), pathParam(r, "server"), id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	cmp, err := registry.Compare(r.Context(), a.Registry, snap)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, snapshotOf(cmp))
}

// snapshotID is the path's snapshot id.
func snapshotID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(pathParam(r, "id"), 10, 64)
	if err != nil {
		return 0, badRequest("snapshot id must be an integer")
	}
	return id, nil
}

func snapshotOf(c registry.Comparison) snapshotJSON {
	snap := c.Snapshot
	out := snapshotJSON{Server: snap.Server, ID: snap.ID, Source: snap.Source, Digest: snap.Digest,
		Tools: len(snap.Tools), ImportedAt: snap.ImportedAt, ApprovedAt: snap.ApprovedAt, Drift: c.Drift}
	if c.Approved != nil {
		out.ApprovedID = c.Approved.ID
	}
	return out
}

func (a *Admin) approveSnapshot(w http.ResponseWriter, r *http.Request) {
	id, err := snapshotID(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	approval, err := a.Registry.ApproveSnapshot(r.Context(), pathParam(r, "server"), id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	declared := make([]map[string]any, len(approval.Declared))
	for i, d := range approval.Declared {
		declared[i] = map[string]any{"created": d.Created, "version": versionOf(d.Version)}
	}
	removed := approval.Removed
	if removed == nil {
		removed = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"server": approval.Snapshot.Server, "id": approval.Snapshot.ID, "approved_at": approval.Snapshot.ApprovedAt,
		"declared": declared, "removed": removed,
	})
}
