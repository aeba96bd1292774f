-- Each client's approval policy: which compositions wait for a person's
-- approval (the backchannel flow) before a token is issued. Existing
-- clients keep issuing as before.
ALTER TABLE oauth_clients ADD COLUMN approval text NOT NULL DEFAULT 'never'
    CHECK (approval IN ('never', 'mutating', 'destructive', 'always'));
