-- Backchannel authentication requests (OpenID CIBA, poll mode): a client's
-- composition waiting for a person's approval. Shared by every replica and
-- kept across restarts; expired rows are purged by housekeeping.
CREATE TABLE approval_requests (
    id              text        COLLATE "C" PRIMARY KEY, -- the auth_req_id
    client_id       text        NOT NULL,
    audience        text        NOT NULL,
    scopes          text[]      NOT NULL DEFAULT '{}',
    details         text        NOT NULL,
    digest          text        NOT NULL,
    tools           text[]      NOT NULL DEFAULT '{}',
    binding_message text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    interval_us     bigint      NOT NULL CHECK (interval_us > 0),
    status          text        NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'denied', 'issued')),
    decided_by      text        NOT NULL DEFAULT '',
    decided_at      timestamptz,
    reason          text        NOT NULL DEFAULT '',
    last_poll_at    timestamptz,
    jti             text        NOT NULL DEFAULT '',
    CHECK ((status = 'pending') = (decided_at IS NULL)),
    CHECK ((status = 'issued') = (jti <> ''))
);
CREATE INDEX approval_requests_pending ON approval_requests (created_at, id) WHERE status = 'pending';
CREATE INDEX approval_requests_client ON approval_requests (client_id) WHERE status = 'pending';
CREATE INDEX approval_requests_expiry ON approval_requests (expires_at);

-- The approval behind an issued token: who approved its request, and when.
ALTER TABLE oauth_issuances
    ADD COLUMN auth_req_id text NOT NULL DEFAULT '',
    ADD COLUMN approved_by text NOT NULL DEFAULT '',
    ADD COLUMN approved_at timestamptz;
