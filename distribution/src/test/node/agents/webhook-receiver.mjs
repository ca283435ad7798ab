// A webhook receiver for WebhooksIT: verifies every request with the Standard Webhooks library
// (standardwebhooks, as a receiver would), answers 204 when the signature holds and 401 when it does
// not, and prints one JSON line per request. The first line is {"port": N}.
// WEBHOOK_SECRET: the whsec_ secret to verify with. The path may ask for an answer:
//   /status/<code>          answer <code> (and Retry-After: 1 for 429 and 503)
//   /fail-first/<n>/<code>  answer <code> to the first n requests of each webhook-id, then verify
//   /gated                  answer 503 while the file named by WEBHOOK_GATE does not exist, then verify
//   /hermes...              a Hermes hooks.outbound endpoint: WEBHOOK_HERMES_SECRET (a plain string) checks
//                           X-Hermes-Signature-256 as a Hermes receiver does, and the Standard Webhooks
//                           signature with the library's raw format
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const verifier = new Webhook(process.env.WEBHOOK_SECRET);
const hermesSecret = process.env.WEBHOOK_HERMES_SECRET;
const hermesVerifier = hermesSecret ? new Webhook(hermesSecret, { format: 'raw' }) : null;

// What a Hermes receiver checks: sha256= and the hex HMAC-SHA256 of the raw body, compared in constant time.
function hermesVerified(body, header) {
  if (!hermesSecret || typeof header !== 'string') return false;
  const expected = 'sha256=' + crypto.createHmac('sha256', hermesSecret).update(body).digest('hex');
  return header.length === expected.length && crypto.timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}
const seen = new Map();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const id = req.headers['webhook-id'];
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    const line = { id, path: req.url, attempt: count, type: null, verified: false, error: null };
    let status = 204;
    const forced = req.url.match(/^\/status\/(\d+)/);
    const failFirst = req.url.match(/^\/fail-first\/(\d+)\/(\d+)/);
    if (forced) status = Number(forced[1]);
    else if (req.url.startsWith('/gated') && !fs.existsSync(process.env.WEBHOOK_GATE ?? '')) status = 503;
    else if (failFirst && count <= Number(failFirst[1])) status = Number(failFirst[2]);
    const hermes = req.url.startsWith('/hermes');
    if (hermes) {
      line.hermes_verified = hermesVerified(body, req.headers['x-hermes-signature-256']);
      line.hermes_event = req.headers['x-hermes-event'] ?? null;
      line.hermes_delivery = req.headers['x-hermes-delivery'] ?? null;
    }
    try {
      const payload = (hermes ? hermesVerifier : verifier).verify(body, req.headers);
      line.verified = true;
      line.type = payload.type;
      line.payload = payload;
    } catch (e) {
      line.error = String(e.message ?? e);
      if (status === 204) status = 401;
    }
    line.status = status;
    console.log(JSON.stringify(line));
    if (status === 429 || status === 503) res.setHeader('Retry-After', '1');
    res.writeHead(status);
    res.end(status === 204 ? undefined : JSON.stringify({ status }));
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
