import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// A certificate authority of the test's own, made with the machine's openssl:
// a server certificate for 127.0.0.1 and client certificates for mutual TLS.

export interface Issued {
  cert: string;
  key: string;
}

export interface TestAuthority {
  ca: string;
  server: Issued;
  client: Issued;
  /** A client certificate the CA did not sign (its own self-signed one). */
  stranger: Issued;
}

export function makeAuthority(): TestAuthority {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-ca-'));
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const key = (name: string) =>
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at(name));
  try {
    key('ca.key');
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      at('ca.key'),
      '-out',
      at('ca.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=Switchboard Test CA',
    );
    const issue = (name: string, subject: string, extensions: string, signer: 'ca' | 'self'): Issued => {
      key(`${name}.key`);
      writeFileSync(at(`${name}.ext`), extensions);
      if (signer === 'self') {
        openssl(
          'req',
          '-x509',
          '-new',
          '-key',
          at(`${name}.key`),
          '-out',
          at(`${name}.pem`),
          '-days',
          '2',
          '-subj',
          subject,
        );
      } else {
        openssl('req', '-new', '-key', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', subject);
        openssl(
          'x509',
          '-req',
          '-in',
          at(`${name}.csr`),
          '-CA',
          at('ca.pem'),
          '-CAkey',
          at('ca.key'),
          '-CAcreateserial',
          '-out',
          at(`${name}.pem`),
          '-days',
          '2',
          '-extfile',
          at(`${name}.ext`),
        );
      }
      return { cert: readFileSync(at(`${name}.pem`), 'utf8'), key: readFileSync(at(`${name}.key`), 'utf8') };
    };
    return {
      ca: readFileSync(at('ca.pem'), 'utf8'),
      server: issue('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n', 'ca'),
      client: issue('client', '/CN=switchboard-client', 'extendedKeyUsage=clientAuth\n', 'ca'),
      stranger: issue('stranger', '/CN=stranger', '', 'self'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
