-- People who sign in to the console, and their sessions. password_hash is
-- a PHC argon2id string; a session row holds the SHA-256 of the token the
-- browser's cookie carries, never the token.
CREATE TABLE console_users (
    name            text        COLLATE "C" PRIMARY KEY,
    role            text        NOT NULL CHECK (role IN ('approver', 'operator')),
    password_hash   text        NOT NULL,
    created_at      timestamptz NOT NULL,
    failed_sign_ins integer     NOT NULL DEFAULT 0,
    locked_until    timestamptz
);

CREATE TABLE console_sessions (
    token_hash bytea       PRIMARY KEY,
    user_name  text        NOT NULL REFERENCES console_users (name) ON DELETE CASCADE,
    csrf       text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
