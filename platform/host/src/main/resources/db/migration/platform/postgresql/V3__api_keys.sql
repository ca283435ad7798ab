-- Named API keys (caduceus key add NAME): each a tenant with its own policy. The key itself is never
-- stored: key_id is the public part of the token (cdk_<key_id>_<secret>), key_hash the salted hash
-- of the whole token (sha256:<salt>:<hash>). A revoked key keeps its row (and its name): objects it
-- owned stay attributed, and the name is not given to anyone else. Times are epoch milliseconds.
CREATE TABLE api_keys (
    name         TEXT PRIMARY KEY,
    key_id       TEXT NOT NULL UNIQUE,
    key_hash     TEXT NOT NULL,
    policy_json  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
