package postgres

// MigrateFiles is Migrate over other migration files, for tests.
var MigrateFiles = migrate
