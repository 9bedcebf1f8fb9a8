import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// The do-not-call list (docs/dialer.md): view-campaigns to read, manage-campaigns to change. A number in a path is
// E.164, its + written as is or as %2B.

const ENTRY = 'phone_number: phoneNumber source note created_at: createdAt';
const phoneNumber: RowParam = { description: 'E.164, such as +14155550100' };
const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Campaigns and leads', ...r });

export const doNotCallRoutes: Route[] = [
  row({
    operationId: 'listDoNotCall',
    methods: ['GET'],
    paths: ['/api/do-not-call'],
    summary: 'List the do-not-call list',
    description: 'Newest first; `next_cursor` gives the next page through the index.',
    params: {
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100 (larger values are clamped)' },
        page: { ...PAGE_BOUND },
        after: { description: 'The next_cursor of the page before' },
        search: { ...BOUNDS.search, description: 'Part of a number' },
      },
    },
    document: `query DoNotCallList($search: String, $page: Int, $perPage: Int, $after: String) {
      doNotCallList(search: $search, page: $page, perPage: $perPage, after: $after) {
        records { ${ENTRY} } ${PAGINATION} next_cursor: nextCursor } }`,
    response: { field: 'doNotCallList', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'addToDoNotCall',
    methods: ['POST'],
    paths: ['/api/do-not-call'],
    summary: 'Put numbers on the do-not-call list',
    description:
      'One to 1,000 E.164 numbers; a bad one is named with its place and value, and none is added. A number on the ' +
      'list already keeps its entry.',
    params: {
      body: {
        phone_numbers: { ...BOUNDS.doNotCall.phoneNumbers, required: true, description: 'E.164 numbers' },
        note: { ...BOUNDS.doNotCall.note, description: 'Why, for the people reading the list' },
      },
    },
    document: `mutation AddToDoNotCall($phoneNumbers: [String!]!, $note: String) {
      addToDoNotCall(phoneNumbers: $phoneNumbers, note: $note) { added already_listed: alreadyListed } }`,
    response: {
      field: 'addToDoNotCall',
      shape: 'envelope',
      message: 'Numbers added to the do-not-call list.',
      data: true,
    },
    status: 201,
  }),
  row({
    operationId: 'getDoNotCall',
    methods: ['GET'],
    paths: ['/api/do-not-call/{phone_number}'],
    summary: "A number's entry on the do-not-call list",
    description: '404 when the number is not on the list.',
    params: { path: { phone_number: phoneNumber } },
    document: `query DoNotCallEntry($phoneNumber: String!) { doNotCallEntry(phoneNumber: $phoneNumber) { ${ENTRY} } }`,
    response: { field: 'doNotCallEntry', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'removeFromDoNotCall',
    methods: ['DELETE'],
    paths: ['/api/do-not-call/{phone_number}'],
    summary: 'Take a number off the do-not-call list',
    description: '404 when the number is not on the list.',
    params: { path: { phone_number: phoneNumber } },
    document: 'mutation RemoveFromDoNotCall($phoneNumber: String!) { removeFromDoNotCall(phoneNumber: $phoneNumber) }',
    response: {
      field: 'removeFromDoNotCall',
      shape: 'envelope',
      message: 'Number removed from the do-not-call list.',
    },
  }),
];
