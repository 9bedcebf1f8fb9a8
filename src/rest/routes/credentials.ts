import type { RowParam } from '../route.js';

// Endpoint credentials in the REST rows (docs/adr/0070-endpoint-credentials.md): the body
// field a webhook, a decision endpoint or a tool takes, and what its answers show.

export const CREDENTIALS_FIELDS =
  'credentials { oauth2 { token_url: tokenUrl client_id: clientId scope } ' +
  'tls { client_certificate_subject: clientCertificateSubject ' +
  'client_certificate_expires_at: clientCertificateExpiresAt custom_ca: customCa } }';

export const CREDENTIALS_VARIABLE = '$credentials: EndpointCredentialsInput';

export const credentials: RowParam = {
  nullable: true,
  description:
    'Credentials beside the signature, http(s) endpoints only: OAuth2 client credentials (a token fetched from ' +
    'token_url and sent as Bearer, fetched again on a 401) and client TLS (a certificate and key for mutual TLS, a CA ' +
    'to trust). Replaces the ones it has; null removes them; left out keeps them. Secrets and keys are stored ' +
    'encrypted and never shown.',
  fields: {
    oauth2: {
      nullable: true,
      fields: {
        token_url: { description: 'http or https, not a private address' },
        client_id: { maxLength: 255 },
        client_secret: { maxLength: 1024, description: 'Stored encrypted, never shown' },
        scope: { maxLength: 1000 },
      },
    },
    tls: {
      nullable: true,
      fields: {
        client_certificate: { maxLength: 16_384, description: 'PEM; with client_key, for mutual TLS' },
        client_key: { maxLength: 16_384, description: 'PEM private key; stored encrypted, never shown' },
        ca: { maxLength: 16_384, description: "PEM of the CA that signs the endpoint's certificate" },
      },
    },
  },
};

/** A webhook's credentials: client TLS also reaches a broker over TLS (docs/adr/0071-broker-tls.md). */
export const webhookCredentials: RowParam = {
  ...credentials,
  description:
    'Credentials beside the signature: OAuth2 client credentials for http(s) urls (a token fetched from token_url ' +
    'and sent as Bearer, fetched again on a 401), and client TLS (a certificate and key for mutual TLS, a CA to ' +
    'trust) for https, amqps, rediss, mqtts and nats urls. Replaces the ones it has; null removes them; left out ' +
    'keeps them. Secrets and keys are stored encrypted and never shown.',
};
