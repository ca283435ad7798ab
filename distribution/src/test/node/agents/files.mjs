// /v1/files with the official openai npm SDK (newest major), unmodified (FilesIT, issue 45).
// Usage: node files.mjs <path>; env BASE_URL (…/v1), API_KEY. Uploads the file at <path> with files.create (a
// stream, as the SDK's docs show), lists, retrieves, downloads and deletes it; with ASK=<question> it asks that in a
// Responses turn with the file as input_file instead (and keeps it). Prints one JSON line.
import crypto from 'node:crypto';
import fs from 'node:fs';
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY, maxRetries: 0 });
const path = process.argv[2];
const out = {};

const created = await client.files.create({
  file: fs.createReadStream(path),
  purpose: 'user_data',
  expires_after: { anchor: 'created_at', seconds: 86400 },
});
out.created = created;

const listed = [];
for await (const file of client.files.list({ purpose: 'user_data' })) listed.push(file.id);
out.listed = listed;

out.retrieved = await client.files.retrieve(created.id);

const content = await client.files.content(created.id);
const bytes = Buffer.from(await content.arrayBuffer());
out.contentSha256 = crypto.createHash('sha256').update(bytes).digest('hex');
out.contentType = content.headers.get('content-type');

if (process.env.ASK) {
  // the file, by id, in a Responses turn: input_file as the SDK's types spell it
  const response = await client.responses.create({
    model: 'hermes-agent',
    input: [{ role: 'user', content: [{ type: 'input_text', text: process.env.ASK }, { type: 'input_file', file_id: created.id }] }],
  });
  out.response = { status: response.status, output_text: response.output_text,
    annotations: response.output.filter((i) => i.type === 'message').flatMap((i) => i.content).flatMap((c) => c.annotations ?? []) };
  console.log(JSON.stringify(out));
  process.exit(0);
}
out.deleted = await client.files.delete(created.id);
try {
  await client.files.retrieve(created.id);
  out.afterDelete = 'still there';
} catch (e) {
  out.afterDelete = { status: e.status, code: e.code ?? e.error?.code ?? null };
}
console.log(JSON.stringify(out));
