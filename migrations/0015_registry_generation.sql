-- The registry's generation: a counter every committed registry change
-- (a new version, a metadata update, a revival, a removal) increments in
-- its own transaction, so that generations follow commit order, and names
-- in its notifications. A replica knows the generation its caches reflect
-- (postgres.Listener) and records it with every issuance; the trigger
-- refuses an issuance validated at another generation than the current
-- one, so that no token is answered for schemas replaced meanwhile, even
-- when the notification never reached the replica (a lost or silently
-- dead LISTEN connection). A registry_generation of -1 means the replica
-- does not know: always refused. NULL checks nothing (refusals, and
-- issuances without a composition).
CREATE TABLE registry_generation (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    gen      bigint  NOT NULL
);
INSERT INTO registry_generation (gen) VALUES (1);

ALTER TABLE oauth_issuances ADD COLUMN registry_generation bigint;

CREATE FUNCTION oauth_issuances_registry_current() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    current bigint;
BEGIN
    IF NEW.outcome = 'issued' AND NEW.registry_generation IS NOT NULL THEN
        SELECT gen INTO current FROM registry_generation;
        IF current IS DISTINCT FROM NEW.registry_generation THEN
            RAISE EXCEPTION 'registry changed since the validation of issuance %', NEW.id
                USING ERRCODE = '22TW1', DETAIL = 'validated at generation ' || NEW.registry_generation || ', current ' || current;
        END IF;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER oauth_issuances_registry_current BEFORE INSERT ON oauth_issuances
    FOR EACH ROW EXECUTE FUNCTION oauth_issuances_registry_current();
