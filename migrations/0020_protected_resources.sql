-- The server's protected resources: the audiences a client without
-- admin-set ones (one that came by a metadata document or by dynamic
-- registration) may ask a token for. --resources lists more, not stored.
CREATE TABLE oauth_protected_resources (
    uri        text PRIMARY KEY CHECK (length(uri) BETWEEN 1 AND 2048),
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 800),
    created_at timestamptz NOT NULL DEFAULT now()
);
