// Destinations beyond HTTP (docs/adr/0065-broker-destinations.md): the
// webhook's URL scheme names the broker, its query what to publish to. The
// exchange, subject, stream and topic are the subscriber's: Switchboard
// publishes to what exists and declares nothing.

export type BrokerKind = 'amqp' | 'nats' | 'redis' | 'mqtt';

interface Scheme {
  kind: BrokerKind;
  tls: boolean;
  port: number;
  /** Query parameters the URL must carry, and those it may. */
  required: string[];
  optional: string[];
  /** How the docs and errors write the URL. */
  form: string;
}

export const BROKER_SCHEMES: Record<string, Scheme> = {
  'amqp:': {
    kind: 'amqp',
    tls: false,
    port: 5672,
    required: ['exchange'],
    optional: ['routing_key'],
    form: 'amqp://user:pass@host:port/vhost?exchange=NAME&routing_key=KEY',
  },
  'amqps:': {
    kind: 'amqp',
    tls: true,
    port: 5671,
    required: ['exchange'],
    optional: ['routing_key'],
    form: 'amqps://user:pass@host:port/vhost?exchange=NAME&routing_key=KEY',
  },
  'nats:': {
    kind: 'nats',
    tls: false,
    port: 4222,
    required: ['subject'],
    optional: [],
    form: 'nats://user:pass@host:port?subject=SUBJECT',
  },
  'redis:': {
    kind: 'redis',
    tls: false,
    port: 6379,
    required: ['stream'],
    optional: ['maxlen'],
    form: 'redis://user:pass@host:port/db?stream=KEY&maxlen=N',
  },
  'rediss:': {
    kind: 'redis',
    tls: true,
    port: 6380,
    required: ['stream'],
    optional: ['maxlen'],
    form: 'rediss://user:pass@host:port/db?stream=KEY&maxlen=N',
  },
  'mqtt:': {
    kind: 'mqtt',
    tls: false,
    port: 1883,
    required: ['topic'],
    optional: [],
    form: 'mqtt://user:pass@host:port?topic=TOPIC',
  },
  'mqtts:': {
    kind: 'mqtt',
    tls: true,
    port: 8883,
    required: ['topic'],
    optional: [],
    form: 'mqtts://user:pass@host:port?topic=TOPIC',
  },
};

/** What an attempt publishes to, read from the URL. */
export interface BrokerTarget {
  kind: BrokerKind;
  tls: boolean;
  host: string;
  port: number;
  username: string;
  password: string;
  /** AMQP: the virtual host; Redis: the database number (as text). */
  path: string;
  params: Record<string, string>;
}

export const isBrokerUrl = (url: URL) => url.protocol in BROKER_SCHEMES;

/** The target a broker URL names (checked at save: brokerUrlProblem). */
export function brokerTarget(url: URL): BrokerTarget {
  const scheme = BROKER_SCHEMES[url.protocol];
  return {
    kind: scheme.kind,
    tls: scheme.tls,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : scheme.port,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    path: decodeURIComponent(url.pathname.slice(1)),
    params: Object.fromEntries(url.searchParams),
  };
}

/** What is wrong with a broker URL's target, or undefined. */
export function brokerUrlProblem(url: URL): string | undefined {
  const scheme = BROKER_SCHEMES[url.protocol];
  const given = [...url.searchParams.keys()];
  const missing = scheme.required.filter((name) => !url.searchParams.get(name));
  if (missing.length > 0) return `The url field must name ${missing.join(' and ')} (${scheme.form}).`;
  const unknown = given.filter((name) => !scheme.required.includes(name) && !scheme.optional.includes(name));
  if (unknown.length > 0)
    return `The url field does not take ${unknown.join(', ')} for ${url.protocol.slice(0, -1)} (${scheme.form}).`;
  const maxlen = url.searchParams.get('maxlen');
  if (maxlen !== null && !/^[1-9]\d{0,9}$/.test(maxlen))
    return `The url field's maxlen must be a whole number from 1 (got "${maxlen}").`;
  if (scheme.kind === 'redis' && url.pathname.length > 1 && !/^\/\d{1,2}$/.test(url.pathname))
    return `The url field's path must be a database number such as /0 (got "${url.pathname}").`;
  if (scheme.kind === 'nats' && !/^[^\s*>]+$/.test(url.searchParams.get('subject') ?? ''))
    return "The url field's subject must be a subject without wildcards or spaces.";
  if (scheme.kind === 'mqtt' && /[#+]/.test(url.searchParams.get('topic') ?? ''))
    return "The url field's topic must be a topic without wildcards (# or +).";
  return undefined;
}

/** What stands for a stored password in a URL shown or given back. */
export const MASK = '***';

/** The URL as it is shown, stored in the clear and logged: its password, if any, as ***. */
export function maskedUrl(raw: string): string {
  const url = new URL(raw);
  if (!url.password) return raw;
  url.password = MASK;
  return url.toString().replace(`:${encodeURIComponent(MASK)}@`, `:${MASK}@`);
}

/** Every appearance of the URL's password in a text (a broker's error), as ***. */
export function withoutPassword(text: string, raw: string): string {
  const password = decodeURIComponent(new URL(raw).password);
  return password ? text.split(password).join(MASK) : text;
}

/**
 * How a webhook's URL is kept: shown and stored with its password as ***,
 * the whole URL sealed beside it when it has one. A URL given back with ***
 * for its password keeps the password of the current URL; null when it has
 * none to keep.
 */
export function urlToStore(
  given: string,
  current: { url: string; urlSealed?: string | null } | undefined,
  box: { open(sealed: string): string | undefined; seal(text: string): string },
): { url: string; urlSealed: string | null } | null {
  const url = new URL(given);
  if (decodeURIComponent(url.password) === MASK) {
    const whole = current?.urlSealed ? box.open(current.urlSealed) : null;
    const stored = whole ? new URL(whole).password : '';
    if (!stored) return null;
    url.password = stored;
  }
  if (!url.password) return { url: given, urlSealed: null };
  const whole = url.toString();
  return { url: maskedUrl(whole), urlSealed: box.seal(whole) };
}
