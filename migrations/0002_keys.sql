-- Token signing keys. The private half is sealed (AES-256-GCM) under the
-- key encryption key named by kek_id; the public half is stored as the
-- exact JWK published. A key is in the JWKS from publish_at until
-- expires_at and signs from activate_at until retire_at (NULL: not
-- scheduled yet).
CREATE TABLE signing_keys (
    kid         text        PRIMARY KEY,
    alg         text        NOT NULL CHECK (alg IN ('ES256', 'EdDSA')),
    public_jwk  json        NOT NULL,
    private_key bytea       NOT NULL,
    kek_id      text        NOT NULL,
    created_at  timestamptz NOT NULL,
    publish_at  timestamptz NOT NULL,
    activate_at timestamptz NOT NULL,
    retire_at   timestamptz,
    expires_at  timestamptz,
    CHECK (activate_at >= publish_at),
    CHECK (expires_at IS NULL OR retire_at IS NULL OR expires_at >= retire_at)
);
