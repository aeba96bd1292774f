-- placeholder replaced by the registry work; see internal/store/postgres.
SELECT 1;
