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
