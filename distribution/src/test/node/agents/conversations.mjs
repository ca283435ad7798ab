// OpenAI's Conversations API with the official openai npm SDK, unmodified (ConversationsApiIT, issue 43).
// Usage: node conversations.mjs; env BASE_URL (…/v1), API_KEY. Prints one JSON line with what the SDK returned.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY, maxRetries: 0 });
const out = {};

const conversation = await client.conversations.create({
  metadata: { topic: 'names' },
  items: [{ type: 'message', role: 'user', content: 'My name is Ana.' }],
});
out.id = conversation.id;
out.object = conversation.object;
out.metadata = conversation.metadata;

const added = await client.conversations.items.create(conversation.id, {
  items: [{ type: 'message', role: 'assistant', content: 'Hello Ana.' }],
});
out.added = added.data.length;

const response = await client.responses.create({ model: 'hermes-agent', input: 'What is my name?', conversation: conversation.id });
out.answer = response.output_text;

// The SDK's auto-paging iterator follows has_more with `after` = the last id of each page.
const items = [];
for await (const item of client.conversations.items.list(conversation.id, { limit: 2, order: 'asc' })) {
  items.push(`${item.type}:${item.role}:${item.content.map((part) => part.text).join('')}`);
}
out.items = items;

const first = (await client.conversations.items.list(conversation.id, { order: 'asc', limit: 1 })).data[0];
out.retrieved = (await client.conversations.items.retrieve(first.id, { conversation_id: conversation.id })).id === first.id;
await client.conversations.items.delete(first.id, { conversation_id: conversation.id });
out.afterDelete = (await client.conversations.items.list(conversation.id, { limit: 100 })).data.length;

out.updated = (await client.conversations.update(conversation.id, { metadata: { topic: 'changed' } })).metadata.topic;
out.deleted = (await client.conversations.delete(conversation.id)).deleted;
try {
  await client.conversations.retrieve(conversation.id);
  out.afterDeleteStatus = 200;
} catch (e) {
  out.afterDeleteStatus = e.status;
}
console.log(JSON.stringify(out));
