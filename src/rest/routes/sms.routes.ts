import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import type { Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// SMS: send through the provider, read the log (docs/design.md §4).

const MESSAGE =
  'id direction from_number: fromNumber to_number: toNumber body status error_code: errorCode created_at: createdAt';

const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Messaging', ...r });

export const smsRoutes: Route[] = [
  row({
    operationId: 'sendSms',
    answers: [502],
    methods: ['POST'],
    paths: ['/api/sms'],
    summary: 'Send an SMS',
    description:
      "Sends through the provider from one of the company's numbers (default: its first). sms.sent or sms.failed follow when the provider reports. " +
      'A recipient who texted STOP (docs/dialer.md) is refused with a 422 naming to, until they text START.',
    params: {
      body: {
        to: { description: 'E.164 recipient' },
        body: { ...BOUNDS.sms.body },
        from: { description: "One of the company's numbers, E.164" },
      },
    },
    document: `mutation SendSms($to: String!, $body: String!, $from: String) { sendSms(to: $to, body: $body, from: $from) { ${MESSAGE} } }`,
    response: { field: 'sendSms', shape: 'envelope', message: 'SMS sent successfully.', data: true },
    status: 201,
  }),
  row({
    operationId: 'listSms',
    methods: ['GET'],
    paths: ['/api/sms'],
    summary: 'The SMS log',
    description: 'Messages sent and received, newest first.',
    params: {
      query: {
        direction: {},
        page: { ...PAGE_BOUND, description: 'Default 1' },
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
      },
    },
    document:
      `query ListSms($direction: Direction, $page: Int, $perPage: Int) { smsMessages(direction: ` +
      `$direction, page: $page, perPage: $perPage) { records { ${MESSAGE} } ${PAGINATION} } }`,
    response: { field: 'smsMessages', shape: 'envelope', data: true },
  }),
];
