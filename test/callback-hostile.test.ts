import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ingressTable } from '../src/rest/routes/index.js';
import { SIGNATURE_HEADER, telcoSignature } from '../src/telco/signature.js';
import { parseInstant } from '../src/kernel/time/instant.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/receiver.js';

// Every parameter of every provider callback, given hostile values in a
// validly signed callback: each answer is a 4xx (never a 500), and the
// database is unchanged. A parameter this table does not know fails the
// test, so a new parameter comes with its hostile values.

let app: TestApp;
let account: { sid: string; authToken: string };
let ours: string;
const logs: string[] = [];

const hex = (n: number) => randomBytes(n).toString('hex');
const CONTROL = ['a\u0000b', 'a\u0001b', 'a\u001bb', 'a\u007fb'];
const OUT_OF_RANGE_DATES = [
  '-010000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '0000-01-01T00:00:00Z',
  '2026-02-31T10:00:00Z',
  '2026-13-01T10:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01 10:00',
  '1e309',
  'NaN',
];
const NUMBERS = ['-1', '1e309', 'NaN', '99999999999999999999', '0x10', ' 1'];
const PHONES = ['+0123', '14155550123', `+1${'5'.repeat(20)}`, '+1 415 555 0123'];

/** Hostile values for each parameter the callbacks take (beyond the control characters every one is given). */
const HOSTILE: Record<string, string[]> = {
  AccountSid: [],
  CallSid: ['CA', `CA${hex(16).toUpperCase()}x`, `CA${hex(17)}`],
  MessageSid: ['SM', `SM${hex(17)}`],
  From: PHONES,
  To: PHONES,
  Direction: ['sideways', 'INBOUND'],
  CallStatus: ['exploded', ''],
  CallDuration: NUMBERS,
  RecordingUrl: ['javascript:alert(1)', 'ftp://example.com/a.wav', `https://example.com/${'a'.repeat(3000)}`],
  TransferredTo: PHONES,
  Transcription: [],
  Sentiment: ['angry', 'POSITIVE'],
  Disposition: [],
  Tags: [],
  AppointmentAt: OUT_OF_RANGE_DATES,
  MessageStatus: ['exploded'],
  ErrorCode: NUMBERS.concat(['30003; DROP TABLE sms_messages']),
  Body: ['x'.repeat(1601)],
  Summary: ['x'.repeat(5001)],
  Sequence: NUMBERS.concat(['100001', '']),
  Speaker: ['robot', 'AGENT', ''],
  Text: ['x'.repeat(2001), '', '   '],
  Tool: ['has space', '', 'x'.repeat(65), '1st_tool', 'drop;table'],
  Arguments: ['x'.repeat(16_385)],
  Successful: ['yes', 'TRUE', ''],
  CustomAnalysis: [
    'not json',
    'null',
    '[1,2]',
    '"text"',
    '{"Bad Name":1}',
    '{"a":{"nested":true}}',
    '{"a":[1]}',
    `{"a":"${'x'.repeat(1001)}"}`,
    JSON.stringify(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i]))),
  ],
};

/** The call the valid tool callback is about (made in before). */
const toolCall = `CA${randomBytes(16).toString('hex')}`;

/** A valid callback of each route: the base each hostile value is put into. */
const valid = (operationId: string): Record<string, string> => {
  switch (operationId) {
    case 'voiceToolCallback':
      return {
        AccountSid: account.sid,
        CallSid: toolCall,
        From: '+14155550123',
        To: ours,
        Direction: 'inbound',
        Sequence: '0',
        Tool: 'check_availability',
        Arguments: '{"day":"Tuesday"}',
      };
    case 'voiceInboundCallback':
      return { AccountSid: account.sid, CallSid: `CA${hex(16)}`, From: '+14155550123', To: ours };
    case 'voiceStatusCallback':
      return {
        AccountSid: account.sid,
        CallSid: `CA${hex(16)}`,
        From: '+14155550123',
        To: ours,
        Direction: 'inbound',
        CallStatus: 'completed',
        CallDuration: '30',
        RecordingUrl: 'https://example.com/r.wav',
        TransferredTo: '+14155550999',
        Transcription: 'Hello',
        Sentiment: 'positive',
        Disposition: 'booked',
        Tags: 'a,b',
        AppointmentAt: '2030-01-01T10:00:00Z',
      };
    case 'voiceAnalysisCallback':
      return {
        AccountSid: account.sid,
        CallSid: `CA${hex(16)}`,
        From: '+14155550123',
        To: ours,
        Direction: 'inbound',
        Summary: 'Booked a visit',
        Sentiment: 'positive',
        Disposition: 'booked',
        Successful: 'true',
        CustomAnalysis: '{"new_patient":true}',
        RecordingUrl: 'https://example.com/r.wav',
      };
    case 'voiceTranscriptCallback':
      return {
        AccountSid: account.sid,
        CallSid: `CA${hex(16)}`,
        From: '+14155550123',
        To: ours,
        Direction: 'inbound',
        Sequence: '0',
        Speaker: 'agent',
        Text: 'Hello',
      };
    case 'smsStatusCallback':
      return {
        AccountSid: account.sid,
        MessageSid: `SM${hex(16)}`,
        MessageStatus: 'failed',
        ErrorCode: '30003',
        From: ours,
        To: '+14155550123',
      };
    case 'smsInboundCallback':
      return { AccountSid: account.sid, MessageSid: `SM${hex(16)}`, From: '+14155550123', To: ours, Body: 'Hi' };
    default:
      throw new Error(`no valid callback for ${operationId}: add one`);
  }
};

async function post(path: string, params: Array<[string, string]>) {
  const url = `${app.url}${path}`;
  const body = new URLSearchParams(params);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      [SIGNATURE_HEADER]: telcoSignature(url, Object.fromEntries(params), account.authToken),
    },
    body: body.toString(),
  });
  return { status: response.status, text: await response.text() };
}

before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { logs });
  const { companyId, ...acme } = await app.providerAccount();
  account = acme;
  [{ phone_no: ours }] = await app.sql('SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    companyId,
  ]);
  // A call under way, for the tool callback (a tool is called during a call).
  const started = await post(
    '/api/telco/voice/status',
    Object.entries({ ...valid('voiceStatusCallback'), CallSid: toolCall, CallStatus: 'in-progress' }),
  );
  assert.equal(started.status, 204, started.text);
});
after(() => app?.close());

describe('provider callbacks under hostile input', () => {
  it('knows hostile values for every parameter of every callback row', () => {
    for (const route of ingressTable)
      for (const name of Object.keys(route.params))
        assert.ok(name in HOSTILE, `${route.operationId}.${name} has no hostile values`);
  });

  for (const route of ingressTable) {
    it(`${route.operationId}: every hostile value of every parameter, and a control character in a name, answer 4xx and change nothing`, async () => {
      // The valid callback itself is accepted (so the refusals below are the values' doing).
      const base = valid(route.operationId);
      const control = await post(route.path, Object.entries(base));
      assert.equal(control.status, route.answer ? 200 : 204, control.text);
      // An inbound call is recorded right after its answer: the fingerprint is taken once it is.
      if (route.operationId === 'voiceInboundCallback')
        await eventually(
          async () =>
            (
              await app.sql('SELECT 1 FROM calls WHERE provider_call_id = $1 AND decided_by IS NOT NULL', [
                base.CallSid,
              ])
            )[0],
        );
      const before = await app.fingerprint();
      const tried: string[] = [];
      for (const name of Object.keys(route.params)) {
        for (const value of [...HOSTILE[name], ...CONTROL]) {
          const params = valid(route.operationId);
          params[name] = value;
          const response = await post(route.path, Object.entries(params));
          assert.ok(
            response.status >= 400 && response.status < 500,
            `${name}=${JSON.stringify(value)}: ${response.status} ${response.text}`,
          );
          assert.equal(JSON.parse(response.text).success, false);
          tried.push(name);
        }
      }
      for (const name of ['Call\u0000Sid', 'X\u0001', 'Body\u007f']) {
        const response = await post(route.path, [...Object.entries(valid(route.operationId)), [name, 'x']]);
        assert.equal(response.status, 400, `name ${JSON.stringify(name)}`);
        assert.match(response.text, /parameter name holds a control character/);
      }
      assert.equal(await app.fingerprint(), before, 'nothing was recorded');
      assert.ok(tried.length > Object.keys(route.params).length);
      assert.ok(!logs.some((line) => JSON.parse(line).level === 'error'), 'no request failed on the server side');
    });
  }

  it('reads dates strictly: a zone is required, years 1970 to 9999, real calendar days', () => {
    assert.equal(parseInstant('2030-01-01T10:00:00Z')?.toISOString(), '2030-01-01T10:00:00.000Z');
    assert.equal(parseInstant('2030-01-01T10:00:00.123456+02:00')?.toISOString(), '2030-01-01T08:00:00.123Z');
    assert.equal(parseInstant('2028-02-29T00:00Z')?.toISOString(), '2028-02-29T00:00:00.000Z');
    for (const text of [
      ...OUT_OF_RANGE_DATES,
      '2030-01-01T10:00:00',
      '2027-02-29T00:00Z',
      '1969-12-31T23:59:59Z',
      '2030-01-01T10:00:60Z',
    ])
      assert.equal(parseInstant(text), undefined, text);
  });
});
