ALTER TABLE sample_items ADD COLUMN label TEXT;
