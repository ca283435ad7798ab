-- Idempotency-Key on background creates (issue 43): a client that retries a create it never got an
-- answer to gets the response it already started, from any node, for as long as the response is
-- stored. The key is the caller's (owner, key); the fingerprint says whether the retry is the same
-- request (else 409).
CREATE TABLE background_keys (
    owner       TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    response_id TEXT NOT NULL,
    PRIMARY KEY (owner, key)
);
CREATE INDEX background_keys_response ON background_keys (response_id);
