import type { Param } from './route.js';

// The OpenAPI document's request examples (src/rest/openapi.ts).

/**
 * Example values of the request bodies' fields, by REST name: what a caller
 * would send (a phone number in E.164, a real event name, a valid workflow
 * graph), not "string". A field not listed gets one from its type: its first
 * allowed value, 1, true, an array of one example item.
 */
const FIELD_EXAMPLES: Record<string, unknown> = {
  account_sid: 'AC0123456789abcdef0123456789abcdef',
  address: '1 Market St',
  agent_id: '12',
  appointment_at: '2026-12-01T15:00:00Z',
  auth_token: 'the-provider-auth-token',
  baseNo: '+14155550100',
  body: 'Hello from Switchboard',
  campaign_id: '3',
  city: 'San Francisco',
  company_name: 'Acme Agency',
  contact_id: '7',
  country: 'US',
  crm_location_id: 'loc_123',
  description: 'Calls new leads back within a minute',
  email: 'owner@acme.test',
  event: 'agent.created',
  events: ['call.ended', 'appointment.scheduled'],
  first_name: 'Ada',
  last_name: 'Lovelace',
  folder_id: '2',
  folder_ids: ['2', '5'],
  form_data: ['first_name', 'email', 'phone_number'],
  list_selection: 'Custom',
  from: '+14155550100',
  import_token: 'the token listed with the importable number',
  messaging_service_sid: 'MG0123456789abcdef0123456789abcdef',
  method: 'POST',
  name: 'Follow-up calls',
  number_ai_local_presence: 'All',
  password: 'switchboard',
  phoneNo: '+14155550100',
  phone_number: '+14155550100',
  phone_title: 'Main line',
  pipeline_stage_id: '4',
  pnumber: '+14155550100',
  provider: 'telco',
  since: '2026-11-24T00:00:00Z',
  source: 'website',
  stage_name: 'Qualified',
  state: 'CA',
  title: 'CRM sync',
  to: '+14155550123',
  until: '2026-11-24T12:00:00Z',
  url: 'https://hooks.example.com/switchboard',
  zip: '94105',
  tags: ['vip'],
  custom_fields: { plan: 'pro' },
  answer_rate: 0.6,
  average_sentiment: 0,
  min_carriers_to_flag: 2,
  rate_limit: 50,
  permissions: [13, 14],
  permission_ids: [13, 14],
  module_id: 3,
  headers: [{ name: 'X-Api-Key', value: 'the key your gateway expects', secret: true }],
  filters: [
    {
      event: 'call.ended',
      filter: {
        and: [
          { path: 'call_direction', eq: 'inbound' },
          { path: 'call_duration', gt: 60 },
        ],
      },
    },
  ],
  filter: { path: 'agent_id', eq: '7' },
  deadline_ms: 2000,
  credentials: {
    oauth2: {
      token_url: 'https://auth.example.com/oauth/token',
      client_id: 'switchboard',
      client_secret: 'the client secret the authorization server issued',
      scope: 'events:write',
    },
  },
  fallback_message: 'I cannot check the calendar right now; a colleague will call you back.',
  parameters: {
    type: 'object',
    properties: { day: { enum: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'] } },
    required: ['day'],
  },
  fallback_action: 'answer',
  fallback_agent_id: '12',
  fallback_forward_to: '+12125550142',
  phone_number_id: '4',
  data: { agent_id: '7', name: 'Ava', active: true, online: false, contact: null },
  trigger_config: {
    nodes: [
      { id: 'start', kind: 'trigger', type: 'appointment.scheduled', config: {} },
      { id: 'text', kind: 'action', type: 'send_sms', config: { message: 'See you soon' } },
    ],
    edges: [{ from: 'start', to: 'text' }],
  },
};

function exampleOf(name: string, param: Param): unknown {
  const example = anyExampleOf(name, param);
  // A field held to a pattern (an analysis field's name) gets the example in the pattern's words.
  if (param.pattern && typeof example === 'string' && !new RegExp(param.pattern).test(example))
    return example.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  return example;
}

function anyExampleOf(name: string, param: Param): unknown {
  if (param.example !== undefined) return param.example;
  if (name in FIELD_EXAMPLES) return FIELD_EXAMPLES[name];
  if (param.enum?.length) return param.enum[0];
  switch (param.type) {
    case 'integer':
    case 'number':
      return Math.max(1, param.minimum ?? 1);
    case 'boolean':
      return true;
    case 'id':
      return '1';
    case 'array':
      return [exampleOf(name, param.items!)];
    case 'object':
      return bodyExample(param.fields ?? {});
    case 'json':
      return {};
    default:
      return name.replace(/_/g, ' ');
  }
}

/** A whole body: every field under its own name (aliases are alternatives, left out). */
export function bodyExample(fields: Record<string, Param>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([name, param]) => [name, exampleOf(name, param)]));
}

type Schema = Record<string, unknown>;

/** Example text for a response field, by its name: an address where one is expected, a time for `*_at`. */
function textFor(name: string, format: unknown): string {
  if (format === 'date-time' || /(^|_)(at|date|since|until)$/.test(name)) return '2026-11-26T09:00:00.000Z';
  if (/email/.test(name)) return 'owner@acme.test';
  if (/url$/.test(name)) return 'https://hooks.example.com/switchboard';
  if (/(phone|number|^from$|^to$)/.test(name)) return '+14155550100';
  if (/(^|_)id$/.test(name)) return '1';
  return name ? name.replace(/_/g, ' ') : 'text';
}

/**
 * An example of a response body made from its schema (`components`
 * resolves `$ref`s): the first allowed value, 1 within its bounds, an array
 * of one item, every property. Valid against the schema by construction; the
 * suite checks it.
 */
export function responseExample(schema: unknown, components: Record<string, unknown>, name = '', depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 12) return null;
  const s = schema as Schema;
  if (typeof s.$ref === 'string')
    return responseExample(components[s.$ref.split('/').at(-1)!], components, name, depth + 1);
  if ('const' in s) return s.const;
  if ('example' in s) return s.example;
  if (Array.isArray(s.anyOf))
    return responseExample(
      s.anyOf.find((branch) => (branch as Schema).type !== 'null'),
      components,
      name,
      depth + 1,
    );
  if (Array.isArray(s.enum)) return s.enum.find((value) => value !== null) ?? null;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(properties).map(([key, inner]) => [key, responseExample(inner, components, key, depth + 1)]),
      );
    }
    case 'array':
      return [responseExample(s.items, components, name.replace(/s$/, ''), depth + 1)];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' && s.minimum > 1 ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      return textFor(name, s.format);
    default:
      return null;
  }
}
