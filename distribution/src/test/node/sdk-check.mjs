// Calls Caduceus with the official openai npm SDK and prints one JSON line with what it got.
// Env: BASE_URL (…/v1), API_KEY. Run by OpenAiSdkIT after `npm install openai@<pinned>`.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY, maxRetries: 0 });
const messages = (text) => [{ role: 'user', content: text }];
const out = {};

const plain = await client.chat.completions.create({ model: 'hermes-agent', messages: messages('plain please') });
out.plain = plain.choices[0].message.content;
out.plainFinish = plain.choices[0].finish_reason;

const stream = await client.chat.completions.create({
  model: 'hermes-agent', messages: messages('stream please'), stream: true, stream_options: { include_usage: true },
});
let streamed = '';
let usage = null;
for await (const chunk of stream) {
  streamed += chunk.choices[0]?.delta?.content ?? '';
  if (chunk.usage) usage = chunk.usage;
}
out.stream = streamed;
out.streamUsage = usage;

// The helper that breaks on Hermes' named tool-progress events; this turn calls a tool.
const helper = client.chat.completions.stream({ model: 'hermes-agent', messages: messages('use the tool') });
const final = await helper.finalChatCompletion();
out.helper = final.choices[0].message.content;
out.helperFinish = final.choices[0].finish_reason;

console.log(JSON.stringify(out));
