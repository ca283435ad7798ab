// Calls Caduceus' /v1/responses with the official openai npm SDK and prints one JSON line.
// Env: BASE_URL (…/v1), API_KEY. Run by OpenAiSdkResponsesIT after `npm install openai@<pinned>`.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY, maxRetries: 0 });
const out = {};

const first = await client.responses.create({ model: 'hermes-agent', input: 'turn one' });
out.first = first.output_text;
out.firstStatus = first.status;

const second = await client.responses.create({ model: 'hermes-agent', input: 'turn two', previous_response_id: first.id });
const third = await client.responses.create({ model: 'hermes-agent', input: 'turn three', previous_response_id: second.id });
out.third = third.output_text;
out.thirdId = third.id;

// input_items: the SDK's auto-paging iterator follows has_more with `after` = the last id of each page.
const items = [];
for await (const item of client.responses.inputItems.list(third.id, { limit: 2, order: 'asc' })) {
  items.push(`${item.type}:${item.role}:${item.content.map((part) => part.text).join('')}`);
}
out.inputItems = items;
const newest = await client.responses.inputItems.list(third.id);
out.newestInputItem = newest.data[0].content[0].text;

let streamed = '';
const stream = await client.responses.create({ model: 'hermes-agent', input: 'stream please', stream: true });
for await (const event of stream) {
  if (event.type === 'response.output_text.delta') streamed += event.delta;
}
out.stream = streamed;

const helper = client.responses.stream({ model: 'hermes-agent', input: 'use the tool', previous_response_id: third.id });
const final = await helper.finalResponse();
// The stream helper's final response does not fill the `output_text` convenience field; read the item.
out.helper = final.output.filter((item) => item.type === 'message')
  .flatMap((item) => item.content).map((part) => part.text).join('');
out.helperStatus = final.status;
out.helperItems = final.output.map((item) => item.type);

console.log(JSON.stringify(out));
