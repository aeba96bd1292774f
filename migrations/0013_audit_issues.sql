-- The issues behind a refusal, as the client was answered (code, severity,
-- verdict, paths, message, witness and the validator's complaint), bounded
-- by the writer (internal/audit: at most 16 issues, each witness at most
-- 1 KiB), and how many issues were left out. Added on the partitioned
-- parent, the columns reach every day partition and the default one;
-- oauth_issuances_ensure_day makes new days LIKE the parent, so they have
-- them too. Existing records keep no issues.
ALTER TABLE oauth_issuances
    ADD COLUMN issues jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(issues) = 'array'),
    ADD COLUMN issues_dropped integer NOT NULL DEFAULT 0 CHECK (issues_dropped >= 0);
