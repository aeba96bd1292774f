-- OAuth clients, private_key_jwt replay protection, the revocation list and
-- the issuance audit log.

-- A registered client. secret_hash is HMAC-SHA256 under the server pepper
-- (never the secret); jwks is the public key set of a private_key_jwt client.
CREATE TABLE oauth_clients (
    id                text        PRIMARY KEY,
    name              text        NOT NULL,
    auth_method       text        NOT NULL
        CHECK (auth_method IN ('client_secret_basic', 'client_secret_post', 'private_key_jwt')),
    secret_hash       bytea,
    jwks              jsonb,
    allowed_tools     text[]      NOT NULL DEFAULT '{}',
    allowed_audiences text[]      NOT NULL DEFAULT '{}',
    allowed_scopes    text[]      NOT NULL DEFAULT '{}',
    disabled          boolean     NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL,
    CHECK ((auth_method = 'private_key_jwt') = (jwks IS NOT NULL)),
    CHECK ((auth_method = 'private_key_jwt') = (secret_hash IS NULL))
);

-- The jti of every accepted client assertion, until the assertion expires.
CREATE TABLE oauth_assertion_jtis (
    client_id  text        NOT NULL,
    jti        text        NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (client_id, jti)
);
CREATE INDEX oauth_assertion_jtis_expiry ON oauth_assertion_jtis (expires_at);

-- Revoked access tokens, until the token expires.
CREATE TABLE oauth_revoked_tokens (
    jti        text        PRIMARY KEY,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_revoked_tokens_expiry ON oauth_revoked_tokens (expires_at);

-- Every token decision. No foreign key to oauth_clients: denials name ids
-- that may not exist, and the log outlives clients.
CREATE TABLE oauth_issuances (
    id                 text        COLLATE "C" PRIMARY KEY, -- byte order, as Go compares
    at                 timestamptz NOT NULL,
    client_id          text        NOT NULL,
    outcome            text        NOT NULL CHECK (outcome IN ('issued', 'denied', 'error')),
    reason             text        NOT NULL DEFAULT '',
    composition_digest text        NOT NULL DEFAULT '',
    tools              text[]      NOT NULL DEFAULT '{}',
    issue_codes        text[]      NOT NULL DEFAULT '{}',
    jti                text        NOT NULL DEFAULT '',
    audience           text        NOT NULL DEFAULT ''
);
-- Newest-first keyset pages, overall and per client.
CREATE INDEX oauth_issuances_at ON oauth_issuances (at DESC, id DESC);
CREATE INDEX oauth_issuances_client_at ON oauth_issuances (client_id, at DESC, id DESC);
