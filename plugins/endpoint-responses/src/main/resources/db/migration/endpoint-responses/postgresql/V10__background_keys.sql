-- Idempotency-Key on background creates, as sqlite/V10__background_keys.sql (which describes it).
CREATE TABLE background_keys (
    owner       TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    response_id TEXT NOT NULL,
    PRIMARY KEY (owner, key)
);
CREATE INDEX background_keys_response ON background_keys (response_id);
