-- DPoP (RFC 9449). A client registered with dpop_bound_access_tokens gets
-- no token without a DPoP proof (§5.2); existing clients may still get
-- bearer tokens. Each issuance records the thumbprint of the key its token
-- is bound to ('' for a bearer token), and a refresh family the key of the
-- code redemption's proof, which its refreshes must prove.
ALTER TABLE oauth_clients ADD COLUMN dpop_bound_access_tokens boolean NOT NULL DEFAULT false;
ALTER TABLE oauth_issuances ADD COLUMN dpop_jkt text NOT NULL DEFAULT '';
ALTER TABLE oauth_refresh_families ADD COLUMN dpop_jkt text NOT NULL DEFAULT '';
-- The token endpoint's DPoP nonces (RFC 9449 §8, serve --dpop-nonce),
-- shared by the replicas: a new one a minute, each accepted five minutes.
CREATE TABLE dpop_nonces (
    nonce      text        PRIMARY KEY,
    created_at timestamptz NOT NULL
);
CREATE INDEX dpop_nonces_created ON dpop_nonces (created_at);
