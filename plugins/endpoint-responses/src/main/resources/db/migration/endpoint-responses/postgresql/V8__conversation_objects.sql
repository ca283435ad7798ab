-- OpenAI's Conversations API, as sqlite/V8__conversation_objects.sql (which describes it).
CREATE TABLE conversation_objects (
    id         TEXT   NOT NULL PRIMARY KEY,
    owner      TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    metadata   TEXT   NOT NULL
);
CREATE INDEX conversation_objects_owner ON conversation_objects (owner);
CREATE TABLE conversation_items (
    conversation_id TEXT   NOT NULL,
    seq             BIGINT NOT NULL,
    item_id         TEXT   NOT NULL,
    item            TEXT   NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
CREATE UNIQUE INDEX conversation_items_id ON conversation_items (conversation_id, item_id);
