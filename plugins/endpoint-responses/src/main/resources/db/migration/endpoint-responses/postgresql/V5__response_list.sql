-- Listing stored responses and conversations (issue 24), as sqlite/V5__response_list.sql (which
-- describes the columns): the list columns, filled for older rows as there, and their indexes.
-- created_seq is an access tick, so BIGINT.
ALTER TABLE responses ADD COLUMN created_seq BIGINT;
ALTER TABLE responses ADD COLUMN parent_id TEXT;
ALTER TABLE responses ADD COLUMN conversation TEXT;
ALTER TABLE responses ADD COLUMN status TEXT;
ALTER TABLE responses ADD COLUMN model TEXT;
ALTER TABLE responses ADD COLUMN previous_response_id TEXT;
ALTER TABLE responses ADD COLUMN input_preview TEXT;
ALTER TABLE responses ADD COLUMN output_preview TEXT;

UPDATE responses SET created_seq = accessed_at;
UPDATE responses SET conversation = (SELECT c.name FROM conversations c
    WHERE c.response_id = responses.id AND c.owner = responses.owner ORDER BY c.name LIMIT 1);
UPDATE responses SET parent_id = (SELECT p.id FROM responses p
    WHERE p.chain_id = responses.chain_id AND p.last_seq = responses.base_seq AND p.id <> responses.id
    ORDER BY p.created_seq DESC LIMIT 1)
    WHERE chain_id IS NOT NULL AND base_seq > 0;

CREATE INDEX responses_owner_created ON responses (owner, created_at, created_seq);
CREATE INDEX responses_created ON responses (created_at, created_seq);
CREATE INDEX responses_parent ON responses (parent_id);
