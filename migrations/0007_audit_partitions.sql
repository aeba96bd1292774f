-- The issuance log, partitioned by UTC day: at thousands of tokens a second
-- the log grows by hundreds of millions of rows a day, and retention must
-- drop whole partitions (a catalog change) rather than delete rows.
--
-- The primary key includes the partition key, as Postgres requires: it is
-- (at, id), which is also the newest-first order of every admin query. A
-- retried record has the same id and time, so duplicates are still found.

ALTER TABLE oauth_issuances RENAME TO oauth_issuances_0003;
ALTER INDEX oauth_issuances_pkey RENAME TO oauth_issuances_0003_pkey;
ALTER INDEX oauth_issuances_at RENAME TO oauth_issuances_0003_at;
ALTER INDEX oauth_issuances_client_at RENAME TO oauth_issuances_0003_client_at;

CREATE TABLE oauth_issuances (
    id                 text        COLLATE "C" NOT NULL, -- byte order, as Go compares
    at                 timestamptz NOT NULL,
    client_id          text        NOT NULL,
    outcome            text        NOT NULL CHECK (outcome IN ('issued', 'denied', 'error')),
    reason             text        NOT NULL DEFAULT '',
    composition_digest text        NOT NULL DEFAULT '',
    tools              text[]      NOT NULL DEFAULT '{}',
    issue_codes        text[]      NOT NULL DEFAULT '{}',
    jti                text        NOT NULL DEFAULT '',
    audience           text        NOT NULL DEFAULT '',
    PRIMARY KEY (at, id)
) PARTITION BY RANGE (at);
-- Newest-first keyset pages: overall by the primary key, per client, and
-- per refusal outcome (refusals are the rare rows an operator looks for;
-- "issued" pages read the primary key).
CREATE INDEX oauth_issuances_client_at ON oauth_issuances (client_id, at, id);
CREATE INDEX oauth_issuances_refusals ON oauth_issuances (outcome, at, id) WHERE outcome <> 'issued';
-- Rows of a day without its partition land here rather than fail; making
-- the day's partition moves them out.
CREATE TABLE oauth_issuances_default PARTITION OF oauth_issuances DEFAULT;

-- oauth_issuances_ensure_day makes the partition of one UTC day unless it
-- exists, moving that day's rows out of the default partition, and reports
-- whether it made one. It creates and then attaches the table, which locks
-- the log only in SHARE UPDATE EXCLUSIVE mode: inserts go on meanwhile.
CREATE FUNCTION oauth_issuances_ensure_day(day date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    name text := 'oauth_issuances_p' || to_char(day, 'YYYYMMDD');
    lo timestamptz := day::timestamp AT TIME ZONE 'UTC';
    hi timestamptz := (day + 1)::timestamp AT TIME ZONE 'UTC';
BEGIN
    IF EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'oauth_issuances'::regclass AND c.relname = name) THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE oauth_issuances INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('ALTER TABLE %I ADD CHECK (at >= %L AND at < %L)', name, lo, hi);
    EXECUTE format('WITH moved AS (DELETE FROM oauth_issuances_default WHERE at >= %L AND at < %L RETURNING *) '
                   'INSERT INTO %I SELECT * FROM moved', lo, hi, name);
    EXECUTE format('ALTER TABLE oauth_issuances ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, lo, hi);
    RETURN true;
END $$;

-- oauth_issuances_drop_before drops every day partition whose whole day is
-- older than cutoff, deletes the default partition's rows older than
-- cutoff, and returns the number of partitions dropped.
CREATE FUNCTION oauth_issuances_drop_before(cutoff timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    part record;
    dropped integer := 0;
BEGIN
    FOR part IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'oauth_issuances'::regclass AND c.relname ~ '^oauth_issuances_p[0-9]{8}$'
          AND (to_date(substr(c.relname, 18), 'YYYYMMDD') + 1)::timestamp AT TIME ZONE 'UTC' <= cutoff
        ORDER BY c.relname
    LOOP
        EXECUTE format('ALTER TABLE oauth_issuances DETACH PARTITION %I', part.relname);
        EXECUTE format('DROP TABLE %I', part.relname);
        dropped := dropped + 1;
    END LOOP;
    DELETE FROM oauth_issuances_default WHERE at < cutoff;
    RETURN dropped;
END $$;

-- Yesterday to two days ahead get their partitions, and so do the days of
-- the existing records, which move over (days older than two months stay
-- in the default partition, which retention empties row by row).
SELECT oauth_issuances_ensure_day(d::date)
FROM generate_series(
    date_trunc('day', greatest(coalesce((SELECT min(at) FROM oauth_issuances_0003), now() - interval '1 day'),
                               now() - interval '60 days') AT TIME ZONE 'UTC'),
    (now() + interval '2 days') AT TIME ZONE 'UTC',
    interval '1 day') AS d;
INSERT INTO oauth_issuances SELECT * FROM oauth_issuances_0003;
DROP TABLE oauth_issuances_0003;
