// Streams one chat turn from Caduceus with the AI SDK's streamText over its openai-compatible
// provider and prints one JSON line: the reasoning and text it reported, and the part types seen.
// Env: BASE_URL (…/v1), API_KEY. Run by ToolProgressIT against a server in `reasoning` mode.
import { streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const caduceus = createOpenAICompatible({ name: 'caduceus', baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY });
const result = streamText({ model: caduceus('hermes-agent'), prompt: '1+1', maxRetries: 0 });
let reasoning = '';
let text = '';
const types = [];
for await (const part of result.fullStream) {
  if (!types.includes(part.type)) types.push(part.type);
  if (part.type === 'reasoning-delta') reasoning += part.text;
  if (part.type === 'text-delta') text += part.text;
  if (part.type === 'error') throw part.error;
}
console.log(JSON.stringify({ reasoning, text, finalText: await result.text, types }));
