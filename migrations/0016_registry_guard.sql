-- The registry's cross-replica guard leaves the audit log: migration
-- 0015's trigger refused the audit row of an issuance validated at
-- another registry generation than the current one, so the log gated the
-- registry. Now the registry's own function registry_generation_is says
-- whether the registry is at the generations given (the ones the
-- validations of a batch of tokens read) and raises 22TW1 when it is not;
-- typeward calls it in the same transaction as the audit INSERT, before
-- it, once per group-committed batch rather than once per row. The audit
-- log records every row it is given, with the generation its validation
-- read (registry_generation, a fact), and gates nothing.
DROP TRIGGER oauth_issuances_registry_current ON oauth_issuances;
DROP FUNCTION oauth_issuances_registry_current();

CREATE FUNCTION registry_generation_is(validated bigint[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    current bigint;
BEGIN
    SELECT gen INTO current FROM registry_generation;
    IF EXISTS (SELECT 1 FROM unnest(validated) AS v(g) WHERE g IS DISTINCT FROM current) THEN
        RAISE EXCEPTION 'the registry changed since a validation'
            USING ERRCODE = '22TW1', DETAIL = 'validated at generations ' || validated::text || ', current ' || current;
    END IF;
    RETURN current;
END $$;
