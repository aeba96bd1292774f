-- Each refresh token records the access token issued with it (the code's,
-- for a family's first): a reused refresh token or a replayed code revokes
-- every access token of the family still unexpired, not only the latest
-- (RFC 6749 §4.1.2: all tokens issued from that code).
ALTER TABLE oauth_refresh_tokens ADD COLUMN jti text NOT NULL DEFAULT '';
ALTER TABLE oauth_refresh_tokens ADD COLUMN jti_expires_at timestamptz;
