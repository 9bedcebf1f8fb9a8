// A webhook receiver for Switchboard, with no dependency beyond Node.js.
//   WEBHOOK_SECRET=whsec_... PORT=4000 npm run receiver
// It verifies both signatures of every delivery, rejects replays older than
// five minutes, answers 2xx to accept (anything else makes Switchboard
// retry), and prints one JSON line per request.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.WEBHOOK_SECRET;
const port = Number(process.env.PORT ?? 4000);
if (!secret?.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the webhook\'s secret (whsec_...).');
  process.exit(64);
}

const equal = (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** metadata.signature / x-webhook-signature: HMAC-SHA256 (hex) of the body without its signature, keyed by the whole secret. */
function verifyPayloadSignature(rawBody, header) {
  const marker = `,"signature":"${header}"}}`;
  if (!header || !rawBody.endsWith(marker)) return false;
  const unsigned = `${rawBody.slice(0, -marker.length)}}}`;
  const expected = `sha256=${createHmac('sha256', secret).update(unsigned).digest('hex')}`;
  return equal(expected, header);
}

/** Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body", keyed by the secret's base64-decoded bytes. */
function verifyStandardSignature(rawBody, id, timestamp, header) {
  if (!id || !timestamp || !header) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false; // a replay, or a clock far off
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`;
  return header.split(' ').some((candidate) => equal(expected, candidate));
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const payloadOk = verifyPayloadSignature(rawBody, req.headers['x-webhook-signature']);
    const standardOk = verifyStandardSignature(rawBody, req.headers['webhook-id'], req.headers['webhook-timestamp'], req.headers['webhook-signature']);
    const verified = payloadOk && standardOk;
    let event = null;
    try {
      event = JSON.parse(rawBody).event;
    } catch {
      // not JSON: not verified either
    }
    console.log(JSON.stringify({ verified, payloadOk, standardOk, event, id: req.headers['webhook-id'], attempt: req.headers['x-webhook-attempt'] }));
    res.writeHead(verified ? 200 : 400, { 'content-type': 'text/plain' });
    res.end(verified ? 'ok' : 'signature mismatch');
  });
}).listen(port, () => console.log(JSON.stringify({ listening: port })));
