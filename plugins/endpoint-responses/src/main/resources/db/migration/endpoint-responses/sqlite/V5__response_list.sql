-- Listing stored responses and conversations (issue 24: GET /v1/responses, GET/DELETE /api/conversations).
-- A list reads these columns only, never the envelope (which can hold large tool outputs) or the
-- transcript. Written by every save. Rows from before V5 are filled from their envelope and
-- transcript once, by the plugin's start (the status lives inside the envelope JSON, which SQL here
-- does not parse).
--   created_seq           the access tick at first insert: orders responses created in one second
--   parent_id             the stored response this turn continued (previous_response_id or the
--                         conversation's latest response), or NULL. A conversation's chain is its
--                         latest response and its parents. Removing a response re-points its
--                         children at its own parent.
--   conversation          the conversation name the turn was sent with, or NULL
--   status, model, previous_response_id   as in the envelope
--   input_preview, output_preview         plain text, at most 200 characters
ALTER TABLE responses ADD COLUMN created_seq INTEGER;
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
-- A chained row's parent is the response on its chain whose transcript ends where its own messages
-- start (a turn appends in place only while nobody reaches past its base). A branch copied into a new
-- chain, a seeded chain and a V1 row find none and start their chain.
UPDATE responses SET parent_id = (SELECT p.id FROM responses p
    WHERE p.chain_id = responses.chain_id AND p.last_seq = responses.base_seq AND p.id <> responses.id
    ORDER BY p.created_seq DESC LIMIT 1)
    WHERE chain_id IS NOT NULL AND base_seq > 0;

CREATE INDEX responses_owner_created ON responses (owner, created_at, created_seq);
CREATE INDEX responses_created ON responses (created_at, created_seq);
CREATE INDEX responses_parent ON responses (parent_id);
