-- The list of stored responses (GET /v1/responses) shows each response's metadata (issue 43): a list
-- column, as V5's, written with every save; rows saved before it get theirs from the envelope here.
ALTER TABLE responses ADD COLUMN metadata TEXT;
UPDATE responses SET metadata = json_extract(envelope, '$.metadata') WHERE json_valid(envelope);
