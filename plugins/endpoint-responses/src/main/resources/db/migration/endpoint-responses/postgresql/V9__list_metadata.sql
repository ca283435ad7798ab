-- The list's metadata column, as sqlite/V9__list_metadata.sql (which describes it).
ALTER TABLE responses ADD COLUMN metadata TEXT;
UPDATE responses SET metadata = (envelope::jsonb -> 'metadata')::text;
