-- OpenAI's Conversations API (issue 43): a conversation object (conv_…) owned by the key that created
-- it, with its metadata, and its items in order (the item JSON as listed: messages, function calls and
-- outputs, the server's mcp_call steps, reasoning). Items are added by POST …/items and by every
-- response created with conversation: conv_… once it completes (its input, then its output; an item id
-- is unique within its conversation, so a response's items are added once). Hermes' named
-- conversations stay in the table conversations.
CREATE TABLE conversation_objects (
    id         TEXT    NOT NULL PRIMARY KEY,
    owner      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    metadata   TEXT    NOT NULL
);
CREATE INDEX conversation_objects_owner ON conversation_objects (owner);
CREATE TABLE conversation_items (
    conversation_id TEXT    NOT NULL,
    seq             INTEGER NOT NULL,
    item_id         TEXT    NOT NULL,
    item            TEXT    NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
CREATE UNIQUE INDEX conversation_items_id ON conversation_items (conversation_id, item_id);
