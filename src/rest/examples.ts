import type { Param } from './route.js';

// The OpenAPI document's request examples (src/rest/openapi.ts).

/**
 * Example values of the request bodies' fields, by REST name: what a caller
 * would send (a phone number in E.164, a real event name, a valid workflow
 * graph), not "string". A field not listed gets one from its type: its first
 * allowed value, 1, true, an array of one example item.
 */
const FIELD_EXAMPLES: Record<string, unknown> = {
  account_sid: 'AC0123456789abcdef0123456789abcdef', address: '1 Market St', agent_id: '12', appointment_at: '2026-12-01T15:00:00Z',
  auth_token: 'the-provider-auth-token', baseNo: '+14155550100', body: 'Hello from Switchboard', campaign_id: '3', city: 'San Francisco',
  company_name: 'Acme Agency', contact_id: '7', country: 'US', crm_location_id: 'loc_123', description: 'Calls new leads back within a minute',
  email: 'owner@acme.test', event: 'agent.created', events: ['call.ended', 'appointment.scheduled'], first_name: 'Ada', last_name: 'Lovelace',
  folder_id: '2', folder_ids: ['2', '5'], form_data: ['first_name', 'email', 'phone_number'], list_selection: 'Custom', from: '+14155550100', import_token: 'the token listed with the importable number',
  messaging_service_sid: 'MG0123456789abcdef0123456789abcdef', method: 'POST', name: 'Follow-up calls', number_ai_local_presence: 'All',
  password: 'switchboard', phoneNo: '+14155550100', phone_number: '+14155550100', phone_title: 'Main line', pipeline_stage_id: '4',
  pnumber: '+14155550100', provider: 'telco', since: '2026-11-24T00:00:00Z', source: 'website', stage_name: 'Qualified', state: 'CA',
  title: 'CRM sync', to: '+14155550123', until: '2026-11-24T12:00:00Z', url: 'https://hooks.example.com/switchboard', zip: '94105',
  tags: ['vip'], custom_fields: { plan: 'pro' }, answer_rate: 0.6, average_sentiment: 0, min_carriers_to_flag: 2, rate_limit: 50,
  permissions: [13, 14], permission_ids: [13, 14], module_id: 3, headers: [{ name: 'X-Api-Key', value: 'the key your gateway expects', secret: true }],
  filters: [{ event: 'call.ended', filter: { and: [{ path: 'call_direction', eq: 'inbound' }, { path: 'call_duration', gt: 60 }] } }],
  filter: { path: 'agent_id', eq: '7' }, data: { agent_id: '7', name: 'Ava', active: true, online: false, contact: null },
  trigger_config: {
    nodes: [
      { id: 'start', kind: 'trigger', type: 'appointment.scheduled', config: {} },
      { id: 'text', kind: 'action', type: 'send_sms', config: { message: 'See you soon' } },
    ],
    edges: [{ from: 'start', to: 'text' }],
  },
};

function exampleOf(name: string, param: Param): unknown {
  if (name in FIELD_EXAMPLES) return FIELD_EXAMPLES[name];
  if (param.enum?.length) return param.enum[0];
  switch (param.type) {
    case 'integer':
    case 'number':
      return 1;
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
