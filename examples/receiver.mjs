// A webhook receiver for Switchboard, with no dependency beyond Node.js.
//   WEBHOOK_SECRETS=whsec_... RECEIVER_PORT=4000 npm run receiver
// WEBHOOK_SECRETS holds one or more secrets, comma-separated: one per webhook
// that sends here, or the old and the new secret of a webhook during a
// rotation. (WEBHOOK_SECRET, one secret, is read too.)
// It accepts a delivery whose Standard Webhooks signature (webhook-signature)
// verifies with one of the secrets and whose timestamp is within five
// minutes; during a rotation that header carries a signature by each secret,
// so a receiver holding either one accepts. It also reports whether
// x-webhook-signature (signed with the webhook's current secret only) matched.
// It answers 2xx to accept (anything else makes Switchboard retry) and prints
// one JSON line per request.
//
// It is also an example decision endpoint (docs/call-routing.md): a signed
// `call.inbound` request is answered at once with a decision. A caller listed
// in DECISION_BLOCKED (comma-separated E.164) is rejected; with
// DECISION_FORWARD_TO set every other call is forwarded there; otherwise the
// number's own agent answers, greeting a known contact by first name.
// And an example tool endpoint: a signed `tool.call` is answered with
// `{ "result": ... }` (check_availability gives two free slots on the day asked).

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secrets = (process.env.WEBHOOK_SECRETS ?? process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const portText = process.env.RECEIVER_PORT ?? '4000';
if (secrets.length === 0 || !secrets.every((s) => s.startsWith('whsec_'))) {
  console.error('Set WEBHOOK_SECRETS to the webhook secret (whsec_...), or several separated by commas.');
  process.exit(64);
}
if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
  console.error(`RECEIVER_PORT must be a port number (got "${portText}").`);
  process.exit(64);
}
const port = Number(portText);
const blocked = new Set(
  (process.env.DECISION_BLOCKED ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const forwardTo = process.env.DECISION_FORWARD_TO;

/** The example routing rule: what to do with an inbound call (the answer's schema is DecisionAnswer in openapi.json). */
function decide(data) {
  if (blocked.has(data.caller)) return { action: 'reject', reason: 'blocked caller' };
  if (forwardTo) return { action: 'forward', to: forwardTo };
  const variables = data.contact?.first_name ? { first_name: data.contact.first_name } : {};
  return { action: 'answer', ...(data.agent_id ? { agent_id: data.agent_id } : {}), variables };
}

const equal = (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** metadata.signature / x-webhook-signature: HMAC-SHA256 (hex) of the body without its signature, keyed by the whole secret. */
function verifyPayloadSignature(secret, rawBody, header) {
  const marker = `,"signature":"${header}"}}`;
  if (!header || !rawBody.endsWith(marker)) return false;
  const unsigned = `${rawBody.slice(0, -marker.length)}}}`;
  const expected = `sha256=${createHmac('sha256', secret).update(unsigned).digest('hex')}`;
  return equal(expected, header);
}

/** Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body", keyed by the secret's base64-decoded bytes. */
function verifyStandardSignature(secret, rawBody, id, timestamp, header) {
  if (!id || !timestamp || !header) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false; // a replay, or a clock far off
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`;
  return header.split(' ').some((candidate) => equal(expected, candidate));
}

const server = createServer((req, res) => {
  // Switchboard opens a connection with OPTIONS when a decision endpoint is saved.
  if (req.method === 'OPTIONS') return res.writeHead(204).end();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const verified = secrets.some((secret) =>
      verifyStandardSignature(
        secret,
        rawBody,
        req.headers['webhook-id'],
        req.headers['webhook-timestamp'],
        req.headers['webhook-signature'],
      ),
    );
    const payloadOk = secrets.some((secret) =>
      verifyPayloadSignature(secret, rawBody, req.headers['x-webhook-signature']),
    );
    let event = null;
    let parsed = null;
    try {
      parsed = JSON.parse(rawBody);
      event = parsed.event;
    } catch {
      // not JSON: not verified either
    }
    if (verified && parsed?.type === 'tool.call') {
      const { tool, arguments: args } = parsed.data;
      const result = tool === 'check_availability' ? { day: args.day, slots: ['10:00', '15:30'] } : { ok: true };
      console.log(JSON.stringify({ verified, tool, call: parsed.data.call_sid, result }));
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ result }));
    }
    if (verified && parsed?.type === 'call.inbound') {
      const decision = decide(parsed.data);
      console.log(JSON.stringify({ verified, decision: parsed.data.call_sid, ...decision }));
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(decision));
    }
    console.log(
      JSON.stringify({
        verified,
        payloadOk,
        event,
        id: req.headers['webhook-id'],
        attempt: req.headers['x-webhook-attempt'],
      }),
    );
    res.writeHead(verified ? 200 : 400, { 'content-type': 'text/plain' });
    res.end(verified ? 'ok' : 'signature mismatch');
  });
});
server.on('error', (error) => {
  console.error(
    error.code === 'EADDRINUSE'
      ? `Port ${port} is in use: set RECEIVER_PORT to a free one.`
      : `The receiver could not listen on port ${port}: ${error.message}`,
  );
  process.exit(71);
});
server.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ listening: server.address().port })));
