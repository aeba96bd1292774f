-- The stored compositions each composition's latest validation flattened,
-- as [{"name", "digest"}] ("" for a name none was stored under): one
-- changed since makes the validation stale. Validations recorded before
-- this column say nothing about them; revalidating fills it.
ALTER TABLE compositions ADD COLUMN validated_compositions jsonb NOT NULL DEFAULT '[]';
