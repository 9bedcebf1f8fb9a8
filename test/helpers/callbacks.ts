import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADER, telcoSignature } from '../../src/telco/signature.js';

/** A provider callback to the service at `baseUrl`, form-encoded and signed with the account's auth token, as the provider sends it. */
export function postCallback(
  baseUrl: string,
  authToken: string,
  path: string,
  params: Record<string, string>,
): Promise<Response> {
  const url = `${baseUrl}${path}`;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      [SIGNATURE_HEADER]: telcoSignature(url, params, authToken),
    },
    body: new URLSearchParams(params).toString(),
  });
}

/** A new provider call sid. */
export const newCallSid = (): string => `CA${randomBytes(16).toString('hex')}`;

/** The provider asks how to route the call `sid` from `from` to the account's number `to`. */
export function inboundCallback(
  baseUrl: string,
  account: { sid: string; authToken: string },
  to: string,
  sid: string = newCallSid(),
  from = '+14155550177',
): Promise<Response> {
  return postCallback(baseUrl, account.authToken, '/api/telco/voice/inbound', {
    AccountSid: account.sid,
    CallSid: sid,
    From: from,
    To: to,
  });
}
