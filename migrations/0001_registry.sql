-- The tool registry: tools, their immutable versions, server snapshots,
-- stored compositions and their latest validation. Raw JSON is stored as
-- `json` (not jsonb) so that declarations keep their text verbatim;
-- comparisons use the canonical digests computed by typeward.

CREATE TABLE tools (
    id              bigserial PRIMARY KEY,
    server          text NOT NULL,           -- '' for a tool declared without a server
    name            text NOT NULL,
    title           text NOT NULL DEFAULT '',
    description     text NOT NULL DEFAULT '',
    annotations     json,
    meta            json,
    current_version integer NOT NULL DEFAULT 0,
    digest          text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    removed_at      timestamptz,             -- set when an approved snapshot drops the tool
    UNIQUE (server, name)
);

-- Bare-name resolution looks tools up by name alone.
CREATE INDEX tools_current_by_name ON tools (name) WHERE removed_at IS NULL;

CREATE TABLE tool_versions (
    tool_id       bigint NOT NULL REFERENCES tools (id),
    version       integer NOT NULL CHECK (version > 0),
    digest        text NOT NULL,
    input_digest  text NOT NULL,
    output_digest text NOT NULL DEFAULT '',
    input_schema  json NOT NULL,
    output_schema json,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tool_id, version)
);

-- Every schema ever registered stays as it was: a version is never
-- rewritten or deleted.
CREATE FUNCTION tool_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'tool versions are immutable';
END
$$;
CREATE TRIGGER tool_versions_immutable BEFORE UPDATE OR DELETE ON tool_versions
    FOR EACH ROW EXECUTE FUNCTION tool_versions_immutable();

CREATE TABLE server_snapshots (
    id          bigserial PRIMARY KEY,
    server      text NOT NULL,
    source      text NOT NULL DEFAULT '',
    digest      text NOT NULL,
    tools       json NOT NULL,               -- the tools/list array, in listed order
    imported_at timestamptz NOT NULL DEFAULT now(),
    approved_at timestamptz
);
CREATE INDEX server_snapshots_by_server ON server_snapshots (server, id);

CREATE TABLE compositions (
    name             text PRIMARY KEY,
    definition       json NOT NULL,
    digest           text NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- the latest validation; NULL until validated
    validated_digest text,
    validated_at     timestamptz,
    valid            boolean,
    issues           json
);

-- The tool versions the latest validation of each composition used.
CREATE TABLE composition_tools (
    composition text NOT NULL REFERENCES compositions (name) ON DELETE CASCADE,
    server      text NOT NULL,
    name        text NOT NULL,
    version     integer NOT NULL,
    digest      text NOT NULL,
    pinned      boolean NOT NULL DEFAULT false,
    PRIMARY KEY (composition, server, name, version)
);
CREATE INDEX composition_tools_by_tool ON composition_tools (server, name);
