import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.js';
import { Rules } from '../../kernel/validation.js';
import { httpUrlProblem, type DestinationPolicy } from './destination.js';

// Credentials of an endpoint beside its signature, for webhooks, decision
// endpoints and tools alike (docs/adr/0070-endpoint-credentials.md): OAuth2
// client credentials (a token fetched from the token URL, sent as a Bearer
// token) and TLS (a client certificate and key for mutual TLS, and a CA to
// trust for the endpoint's own certificate). Stored sealed as one JSON value;
// answered without a secret.

export interface OAuth2Credentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string | null;
}

export interface TlsCredentials {
  /** PEM; with clientKey, presented for mutual TLS. */
  clientCertificate?: string | null;
  clientKey?: string | null;
  /** PEM of the CA (or CAs) that signs the endpoint's certificate, trusted instead of the usual roots. */
  ca?: string | null;
}

export interface EndpointCredentials {
  oauth2?: OAuth2Credentials | null;
  tls?: TlsCredentials | null;
}

/** What the API answers of an endpoint's credentials: never a secret or a key. */
export interface CredentialsRecord {
  oauth2: { tokenUrl: string; clientId: string; scope: string | null } | null;
  tls: { clientCertificateSubject: string | null; clientCertificateExpiresAt: Date | null; customCa: boolean } | null;
}

const PEM_MAX = 16_384;
const CLIENT_MAX = 255;
const SECRET_MAX = 1024;
const SCOPE_MAX = 1000;

/**
 * The credentials checked, for an endpoint at `url`: every problem named
 * under `credentials.…`, 422 with the others. Undefined keeps what the
 * endpoint has, null removes them.
 */
export function checkCredentials(
  input: EndpointCredentials | null | undefined,
  url: string | undefined,
  policy: DestinationPolicy,
  rules: Rules,
  { brokers = false }: { brokers?: boolean } = {},
): EndpointCredentials | null | undefined {
  if (input === undefined || input === null) return input;
  const out: EndpointCredentials = {};
  const { oauth2, tls } = input;
  if (!oauth2 && !tls) {
    rules.add('credentials', 'The credentials field must hold oauth2, tls or both; null removes the credentials.');
    return undefined;
  }
  // Client TLS also reaches a broker over TLS (docs/adr/0071-broker-tls.md); OAuth2 is HTTP's alone.
  const TLS_URL = brokers ? /^(https|amqps|rediss|mqtts|nats):/i : /^https:/i;
  const tlsSchemes = brokers ? 'an https, amqps, rediss, mqtts or nats' : 'an https';
  if (oauth2 && url && !/^https?:/i.test(url))
    rules.add(
      'credentials.oauth2',
      'OAuth2 credentials need an http or https url; a broker takes its user and password in the url.',
    );
  if (oauth2) {
    const at = (field: string) => `credentials.oauth2.${field}`;
    rules
      .required(at('tokenUrl'), oauth2.tokenUrl)
      .required(at('clientId'), oauth2.clientId)
      .required(at('clientSecret'), oauth2.clientSecret)
      .maxChars(at('clientId'), oauth2.clientId, CLIENT_MAX)
      .maxChars(at('clientSecret'), oauth2.clientSecret, SECRET_MAX)
      .maxChars(at('scope'), oauth2.scope, SCOPE_MAX);
    if (oauth2.tokenUrl) {
      const problem = httpUrlProblem(oauth2.tokenUrl, policy);
      if (problem) rules.add(at('tokenUrl'), problem.replace('The url field', 'The token url field'));
    }
    out.oauth2 = {
      tokenUrl: oauth2.tokenUrl,
      clientId: oauth2.clientId,
      clientSecret: oauth2.clientSecret,
      scope: oauth2.scope || null,
    };
  }
  if (tls) {
    const at = (field: string) => `credentials.tls.${field}`;
    if (url && !TLS_URL.test(url)) rules.add('credentials.tls', `TLS credentials need ${tlsSchemes} url.`);
    const certificate = tls.clientCertificate
      ? pemProblem(() => new X509Certificate(tls.clientCertificate!))
      : undefined;
    const key = tls.clientKey ? pemProblem(() => createPrivateKey(tls.clientKey!)) : undefined;
    if (!!tls.clientCertificate !== !!tls.clientKey)
      rules.add('credentials.tls', 'A client certificate and its key go together: give both or neither.');
    if (typeof certificate === 'string')
      rules.add(at('clientCertificate'), `The client certificate field ${certificate}`);
    if (typeof key === 'string') rules.add(at('clientKey'), `The client key field ${key}`);
    if (certificate instanceof X509Certificate && key && typeof key !== 'string' && !certificate.checkPrivateKey(key))
      rules.add(at('clientKey'), 'The client key field must be the private key of the client certificate.');
    if (tls.ca && typeof pemProblem(() => new X509Certificate(tls.ca!)) === 'string')
      rules.add(at('ca'), 'The ca field must be a PEM certificate (BEGIN CERTIFICATE).');
    for (const field of ['clientCertificate', 'clientKey', 'ca'] as const)
      rules.maxChars(at(field), tls[field], PEM_MAX);
    if (!tls.clientCertificate && !tls.ca)
      rules.add('credentials.tls', 'TLS credentials need a client certificate, a ca, or both.');
    out.tls = {
      clientCertificate: tls.clientCertificate || null,
      clientKey: tls.clientKey || null,
      ca: tls.ca || null,
    };
  }
  return out.oauth2 || out.tls ? out : null;
}

function pemProblem<T>(read: () => T): T | string {
  try {
    return read();
  } catch {
    return 'must be PEM text (-----BEGIN …-----) that can be read.';
  }
}

export const sealCredentials = (box: SecretBox, credentials: EndpointCredentials | null) =>
  credentials ? box.seal(JSON.stringify(credentials)) : null;

export function openCredentials(box: SecretBox, sealed: string | null | undefined): EndpointCredentials | null {
  if (!sealed) return null;
  const text = box.open(sealed);
  return text ? (JSON.parse(text) as EndpointCredentials) : null;
}

/** The credentials as the API answers them. */
export function credentialsRecord(credentials: EndpointCredentials | null): CredentialsRecord | null {
  if (!credentials) return null;
  const { oauth2, tls } = credentials;
  const certificate = tls?.clientCertificate ? new X509Certificate(tls.clientCertificate) : null;
  return {
    oauth2: oauth2 ? { tokenUrl: oauth2.tokenUrl, clientId: oauth2.clientId, scope: oauth2.scope ?? null } : null,
    tls: tls
      ? {
          clientCertificateSubject: certificate?.subject.replace(/\n/g, ', ') ?? null,
          clientCertificateExpiresAt: certificate ? new Date(certificate.validTo) : null,
          customCa: !!tls.ca,
        }
      : null,
  };
}
