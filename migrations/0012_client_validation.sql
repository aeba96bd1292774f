-- Each client's validation mode: lenient tolerates the proven hazards a
-- pipeline commonly lives with (a value the source may omit, a property an
-- open source does not declare, null on an optional edge) as warnings;
-- strict refuses every proven incompatibility. Existing clients keep
-- issuing as before.
ALTER TABLE oauth_clients ADD COLUMN validation text NOT NULL DEFAULT 'lenient'
    CHECK (validation IN ('lenient', 'strict'));
