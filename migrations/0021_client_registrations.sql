-- Dynamic client registration (RFC 7591): one record per registered
-- client, so the never-used ones can be capped and expired (with their
-- client row), and the initial access tokens of --registration token,
-- kept as their SHA-256 and spent once.
CREATE TABLE oauth_client_registrations (
    client_id     text PRIMARY KEY,
    address       text NOT NULL,
    registered_at timestamptz NOT NULL,
    used_at       timestamptz
);
CREATE INDEX oauth_client_registrations_unused ON oauth_client_registrations (registered_at)
    WHERE used_at IS NULL;

CREATE TABLE oauth_registration_tokens (
    hash       bytea PRIMARY KEY CHECK (length(hash) = 32),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
