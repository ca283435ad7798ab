// Background responses with the official openai npm SDK, unmodified (BackgroundResponsesIT, issue 43).
// Usage: node background.mjs <case>; env BASE_URL (…/v1), API_KEY. Prints one JSON line with what the SDK returned.
//   poll:   responses.create({background: true}) answers at once; responses.retrieve(id) until it has ended.
//   resume: responses.create({background: true, stream: true}) read to its first tool step, then the stream is
//           dropped; responses.retrieve(id, {stream: true, starting_after}) resumes it to the end.
//   cancel: a background stream read until the agent's tool runs, then responses.cancel(id); the milliseconds the
//           cancel call took, and the statuses it and a later retrieve return.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY, maxRetries: 0 });
const out = { case: process.argv[2] };

async function ended(id) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await client.responses.retrieve(id);
    if (response.status !== 'queued' && response.status !== 'in_progress') return response;
    if (Date.now() > deadline) throw new Error(`still ${response.status} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

switch (process.argv[2]) {
  case 'poll': {
    const created = await client.responses.create({ model: 'hermes-agent', input: 'work in the background', background: true });
    out.createdStatus = created.status;
    out.createdBackground = created.background;
    const done = await ended(created.id);
    out.status = done.status;
    out.text = done.output_text;
    out.completedAt = done.completed_at;
    out.totalTokens = done.usage?.total_tokens;
    break;
  }
  case 'resume': {
    const stream = await client.responses.create({ model: 'hermes-agent', input: 'stream in the background', background: true, stream: true });
    const seen = [];
    let id;
    for await (const event of stream) {
      seen.push(event.sequence_number);
      id ??= event.response?.id;
      if (event.type === 'response.output_item.done') break; // the first tool step is done: hang up
    }
    stream.controller.abort();
    out.firstPart = seen;
    const last = seen[seen.length - 1];
    const resumed = await client.responses.retrieve(id, { stream: true, starting_after: last });
    const rest = [];
    let text = '';
    let terminal;
    for await (const event of resumed) {
      rest.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') text += event.delta;
      terminal = event.type;
    }
    out.rest = rest;
    out.text = text;
    out.terminal = terminal;
    out.status = (await client.responses.retrieve(id)).status;
    break;
  }
  case 'cancel': {
    const stream = await client.responses.create({ model: 'hermes-agent', input: 'run the long command', background: true, stream: true });
    let id;
    for await (const event of stream) {
      id ??= event.response?.id;
      if (event.type === 'response.output_item.added' && event.item.type === 'mcp_call') break; // the tool runs now
    }
    stream.controller.abort();
    const started = performance.now();
    const cancelled = await client.responses.cancel(id);
    out.cancelMillis = performance.now() - started;
    out.cancelStatus = cancelled.status;
    out.status = (await client.responses.retrieve(id)).status;
    out.again = (await client.responses.cancel(id)).status;
    break;
  }
  default:
    throw new Error(`unknown case ${process.argv[2]}`);
}
console.log(JSON.stringify(out));
