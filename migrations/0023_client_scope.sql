-- The RFC 7591 scope of a client (its values, in order): what the
-- authorization endpoint asks for when a request names neither scope nor
-- authorization_details. Empty: a token naming no tool, as before.
ALTER TABLE oauth_clients ADD COLUMN scope text[] NOT NULL DEFAULT '{}';
