-- What a person's consent on the authorization page leaves behind: the
-- one-time authorization codes and the refresh-token families they
-- start. Codes and refresh tokens are kept only as their SHA-256.

CREATE TABLE oauth_codes (
    hash           bytea       PRIMARY KEY,
    client_id      text        NOT NULL,
    subject        text        NOT NULL,
    audience       text        NOT NULL,
    scopes         text[]      NOT NULL DEFAULT '{}',
    details        text        NOT NULL,
    digest         text        NOT NULL,
    tools          text[]      NOT NULL DEFAULT '{}',
    consented_at   timestamptz NOT NULL,
    redirect_uri   text        NOT NULL,
    challenge      text        NOT NULL,
    refresh        boolean     NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    -- Set by the one redemption: the token issued, which a replay revokes.
    redeemed_at    timestamptz,
    jti            text        NOT NULL DEFAULT '',
    jti_expires_at timestamptz,
    family_id      text        NOT NULL DEFAULT ''
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

CREATE TABLE oauth_refresh_families (
    id             text        PRIMARY KEY,
    client_id      text        NOT NULL,
    subject        text        NOT NULL,
    audience       text        NOT NULL,
    scopes         text[]      NOT NULL DEFAULT '{}',
    details        text        NOT NULL,
    digest         text        NOT NULL,
    tools          text[]      NOT NULL DEFAULT '{}',
    consented_at   timestamptz NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    last_used_at   timestamptz NOT NULL,
    revoked_at     timestamptz,
    revoked_reason text        NOT NULL DEFAULT '',
    jti            text        NOT NULL DEFAULT '',
    jti_expires_at timestamptz
);
-- Listed per client and per person, newest first; purged by lifetime.
CREATE INDEX oauth_refresh_families_client ON oauth_refresh_families (client_id, created_at DESC, id DESC);
CREATE INDEX oauth_refresh_families_subject ON oauth_refresh_families (subject, created_at DESC, id DESC);
CREATE INDEX oauth_refresh_families_expiry ON oauth_refresh_families (expires_at);

CREATE TABLE oauth_refresh_tokens (
    hash       bytea       PRIMARY KEY,
    family_id  text        NOT NULL REFERENCES oauth_refresh_families (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_family ON oauth_refresh_tokens (family_id);
