import type { Route } from '../route.js';

export const eventRoutes: Route[] = [
  {
    operationId: 'listEvents',
    methods: ['GET'],
    paths: ['/api/events'],
    tag: 'Events',
    summary: 'Events, oldest first after a cursor',
    description:
      'For consumers who pull instead of taking deliveries: every event of the company, oldest first after the ' +
      'cursor, each with the event, timestamp and data a delivery carries (every contact field). Poll with ' +
      'next_cursor; it stays valid for WEBHOOK_RETENTION, after which the answer is 410. An event appears once ' +
      'every transaction older than its own has ended, so following next_cursor sees each event once.',
    params: {
      query: {
        after: { description: 'The next_cursor of the page before; left out: from the oldest event kept' },
        types: {
          description: 'Only these event types: a comma-separated list (call.started,call.ended) or repeated',
        },
        limit: { description: 'Events per page: default 50, 1 to 100' },
      },
    },
    document: `query ListEvents($after: String, $types: [WebhookEvent!], $limit: Int) {
      events(after: $after, types: $types, limit: $limit) {
        data: nodes { id event timestamp: occurredAt data }
        page: pageInfo { has_more: hasNextPage next_cursor: endCursor } } }`,
    response: { field: 'events', shape: 'plain', spread: 'page' },
    answers: [410],
  },
];
