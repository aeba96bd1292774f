-- Tool version digests become RFC 8785 (JCS) digests, which a router in any
-- language recomputes from a tools/list entry (verify.DeclarationDigest).
-- SQL cannot canonicalise JSON as RFC 8785 does, so typeward recomputes them
-- in Go right after migrating (postgres: redigest, run by every Migrate):
-- this file marks the versions that still carry the old digest and lets
-- exactly that rewrite through the immutability trigger.
ALTER TABLE tool_versions ADD COLUMN digest_scheme text NOT NULL DEFAULT 'v1';
ALTER TABLE tool_versions ALTER COLUMN digest_scheme SET DEFAULT 'jcs';
CREATE INDEX tool_versions_old_digest ON tool_versions (tool_id) WHERE digest_scheme <> 'jcs';

CREATE OR REPLACE FUNCTION tool_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The one change allowed: the digest of an old-scheme version replaced
    -- by its JCS digest, nothing else touched.
    IF TG_OP = 'UPDATE' AND OLD.digest_scheme = 'v1' AND NEW.digest_scheme = 'jcs'
       AND NEW.tool_id = OLD.tool_id AND NEW.version = OLD.version
       AND NEW.input_digest = OLD.input_digest AND NEW.output_digest = OLD.output_digest
       AND NEW.input_schema::text = OLD.input_schema::text
       AND NEW.output_schema::text IS NOT DISTINCT FROM OLD.output_schema::text
       AND NEW.created_at = OLD.created_at THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'tool versions are immutable';
END
$$;
