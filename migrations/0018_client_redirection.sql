-- Clients of the authorization code flow: where codes may be sent
-- (redirect_uris), the grants a client is registered for (grant_types;
-- empty: a machine client's client_credentials and CIBA, as every client
-- made before), and public clients (auth_method none: no secret, no keys).
ALTER TABLE oauth_clients ADD COLUMN redirect_uris text[] NOT NULL DEFAULT '{}';
ALTER TABLE oauth_clients ADD COLUMN grant_types text[] NOT NULL DEFAULT '{}';

ALTER TABLE oauth_clients DROP CONSTRAINT oauth_clients_auth_method_check;
ALTER TABLE oauth_clients DROP CONSTRAINT oauth_clients_check1;
ALTER TABLE oauth_clients ADD CONSTRAINT oauth_clients_auth_method_check
    CHECK (auth_method IN ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'));
-- A secret hash exactly for the secret methods (private_key_jwt keeps
-- its jwks, none nothing).
ALTER TABLE oauth_clients ADD CONSTRAINT oauth_clients_secret_check
    CHECK ((auth_method IN ('client_secret_basic', 'client_secret_post')) = (secret_hash IS NOT NULL));
