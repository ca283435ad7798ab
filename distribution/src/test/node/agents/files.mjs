// /v1/files with the official openai npm SDK (newest major), unmodified (FilesIT, issue 45).
// Usage: node files.mjs <path>; env BASE_URL (…/v1), API_KEY. Uploads the file at <path> with files.create (a
// stream, as the SDK's docs show), lists, retrieves, downloads and deletes it (KEEP=1: keeps it); prints one JSON line.
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

if (process.env.KEEP) {
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
