import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { brokerUrlProblem, isBrokerUrl } from './broker-url.js';

// Where a webhook may send (docs/design.md §5, "Safety"): public unicast
// addresses only. The same check runs at save time (literal hosts) and at
// send time (every address the name resolves to), and the connection is
// made to the address that was checked, so DNS rebinding cannot pass.

/**
 * Which addresses webhooks may reach: `public` only (production, unless told),
 * `loopback` too (development: a receiver on this machine, 127.0.0.0/8, ::1
 * and localhost, never another private range), or `private` (every address:
 * WEBHOOK_ALLOW_PRIVATE=true).
 */
export type DestinationPolicy = 'public' | 'loopback' | 'private';

export interface Destination {
  address: string;
  family: 4 | 6;
}

/**
 * Why an address is refused, or undefined for a public one. ipaddr.js names
 * the range; only `unicast` passes, which refuses loopback, private,
 * link-local (and so the 169.254.169.254 metadata service), CGNAT
 * (100.64/10, and 100.100.100.200), unique-local (fd00:ec2::254), multicast,
 * broadcast, unspecified, documentation, benchmark and reserved ranges, and
 * the NAT64, 6to4 and Teredo forms. IPv4-mapped IPv6 is judged as the IPv4
 * address it carries.
 */
export function refusedAddress(text: string): string | undefined {
  const bare = text.replace(/^\[|\]$/g, '');
  // Judged on the IPv6 address itself, in the WHATWG URL's canonical form (ipaddr.js reads a dotted tail
  // such as ::8.8.8.8 as IPv4-mapped, and its process() unwraps some embedding forms and not others).
  if (ipaddr.IPv6.isValid(bare)) {
    const v6 = ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
    const embedding = EMBEDS_IPV4.find(([, cidr]) => v6.match(cidr));
    if (embedding && !['unspecified', 'loopback'].includes(v6.range()))
      return `${v6.toString()} is an ${embedding[0]} address (it carries an IPv4 address)`;
  }
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(bare);
  } catch {
    return `${text} is not an IP address`;
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${parsed.toString()} is a ${range} address`;
}

/**
 * IPv6 forms that carry an IPv4 address and that ipaddr.js calls unicast:
 * refused whatever they carry (no public service is reached through them).
 * The others (NAT64 64:ff9b::/96, 6to4, Teredo) are ranges of their own and
 * refused above; IPv4-mapped ::ffff:0:0/96 is judged as the IPv4 it maps.
 */
const EMBEDS_IPV4: Array<[string, [ipaddr.IPv6, number]]> = [
  ['IPv4-compatible', ipaddr.IPv6.parseCIDR('::/96')],
  ['NAT64 local-use', ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')],
];

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.';

/** Whether a policy lets an address through that refusedAddress() refused. */
function allowedAnyway(address: string, policy: DestinationPolicy): boolean {
  if (policy === 'private') return true;
  if (policy === 'public') return false;
  const parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  return parsed.range() === 'loopback';
}

const PRIVATE_HINT = 'WEBHOOK_ALLOW_PRIVATE=true allows them, for local development';

/** Problems of a URL at save time: scheme, credentials, and hosts that are literally private. */
export function urlProblem(raw: string, policy: DestinationPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The url field must be a valid URL.';
  }
  const broker = isBrokerUrl(url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && !broker)
    return (
      'The url field must be an http, https, amqp, amqps, nats, redis, rediss, mqtt or mqtts URL ' +
      `(got ${url.protocol.slice(0, -1)}).`
    );
  if (!broker && (url.username || url.password)) return 'The url field must not carry credentials for http or https.';
  if (broker && !url.hostname) return 'The url field must name the broker host.';
  const target = broker ? brokerUrlProblem(url) : undefined;
  if (target) return target;
  if (policy === 'private') return undefined;
  const host = url.hostname.toLowerCase();
  if (isLocalName(host))
    return policy === 'loopback' ? undefined : `The url field must not point to localhost (${PRIVATE_HINT}).`;
  // The URL parser has already turned other IPv4 spellings (2130706433, 0x7f.1, 017700000001) into dotted decimal.
  if (ipaddr.isValid(host.replace(/^\[|\]$/g, '')) && refusedAddress(host) && !allowedAnyway(host, policy)) {
    const which =
      policy === 'loopback'
        ? 'a private or link-local address (only loopback is allowed in development; '
        : 'a private, loopback or link-local address (';
    return `The url field must not point to ${which}${PRIVATE_HINT}).`;
  }
  return undefined;
}

/** Problems of a URL that must be http or https (a decision endpoint, a tool, a token URL), named as the url field's. */
export function httpUrlProblem(raw: string, policy: DestinationPolicy): string | undefined {
  return /^https?:/i.test(raw) ? urlProblem(raw, policy) : 'The url field must be an http or https URL.';
}

/** The address to connect to for a host: every address it resolves to must be one the policy allows. */
export async function resolveDestination(host: string, policy: DestinationPolicy): Promise<Destination> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (policy === 'public' && isLocalName(bare.toLowerCase()))
    throw new Error(`refused destination: ${host} is a local name`);
  const addresses = ipaddr.isValid(bare)
    ? [{ address: bare, family: ipaddr.parse(bare).kind() === 'ipv4' ? 4 : 6 }]
    : await lookup(bare, { all: true, verbatim: true });
  if (addresses.length === 0) throw new Error(`${host} did not resolve`);
  if (policy !== 'private') {
    for (const { address } of addresses) {
      const refused = refusedAddress(address);
      if (refused && !allowedAnyway(address, policy))
        throw new Error(`refused destination: ${host} resolves to ${refused}`);
    }
  }
  const [first] = addresses;
  return { address: first.address, family: first.family as 4 | 6 };
}
