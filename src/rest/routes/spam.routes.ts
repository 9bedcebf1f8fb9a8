import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { CARRIER_THRESHOLDS } from '../../kernel/vocabulary.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

const spamId: RowParam = {
  type: 'id',
  idKind: 'spam_protected_number',
  idLabel: 'Number',
  idForms: ['numeric', 'base64'],
  description: 'Numeric or base64 id',
};
const ROW = `id type status pnumber can_edit: canEdit flagged_carriers: flaggedCarriers
  renewal { renews_at: renewsAt auto_renew: autoRenew }
  latest_check: latestCheck { checked_at: checkedAt carriers_checked: carriersChecked flagged_carriers: flaggedCarriers }`;

export const spamRoutes: Route[] = [
  {
    operationId: 'listSpamProtectedNumbers',
    methods: ['GET'],
    paths: ['/api/spam-protected-numbers'],
    tag: 'Spam protection',
    summary: 'List spam-protected numbers',
    description: 'Newest first.',
    params: {
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100 (larger values are clamped)' },
        page: { ...PAGE_BOUND },
        search: { ...BOUNDS.search, description: 'Matches the phone number, type or status' },
        status: { every: 'All', description: 'Omit or All for every status' },
        type: { every: 'All', description: 'Omit or All for every type' },
      },
    },
    document: `query SpamNumbers($search: String, $status: SpamCheckStatus, $type: SpamNumberKind, $page: Int, $perPage: Int) {
      spamProtectedNumbers(filter: { search: $search, status: $status, type: $type }, page: $page, perPage: $perPage) { records { ${ROW} } ${PAGINATION} } }`,
    response: { field: 'spamProtectedNumbers', shape: 'envelope', data: true },
  },
  {
    operationId: 'updateSpamProtectedNumber',
    methods: ['PUT'],
    paths: ['/api/spam-protected-numbers/{id}', '/api/spam-protected-numbers/update/{id}'],
    tag: 'Spam protection',
    summary: 'Update spam-protected number',
    description:
      'Only Custom numbers can be edited; AI and House numbers are 422. The number is In Progress again until its next check.',
    params: {
      path: { id: spamId },
      body: { pnumber: { ...BOUNDS.spamNumber.pnumber } },
    },
    document:
      'mutation UpdateSpamNumber($id: ID!, $pnumber: String!) { updateSpamProtectedNumber(id: $id, pnumber: $pnumber) { id type pnumber can_edit: canEdit } }',
    response: {
      field: 'updateSpamProtectedNumber',
      shape: 'envelope',
      message: 'Number updated successfully.',
      data: true,
    },
  },
  {
    operationId: 'updateSpamFlagSettings',
    methods: ['PUT', 'POST'],
    paths: ['/api/spam-protected-numbers/flag-settings'],
    tag: 'Spam protection',
    summary: 'Update Flag Settings',
    description:
      'Minimum carriers that must flag a number to mark it Flagged; every checked number is re-evaluated at once.',
    params: { body: { min_carriers_to_flag: { enum: CARRIER_THRESHOLDS } } },
    document:
      'mutation FlagSettings($minCarriersToFlag: Int!) { updateSpamFlagSettings(minCarriersToFlag: ' +
      '$minCarriersToFlag) { min_carriers_to_flag: minCarriersToFlag } }',
    response: {
      field: 'updateSpamFlagSettings',
      shape: 'envelope',
      message: 'Minimum carriers to flag settings saved successfully.',
      data: true,
    },
  },
];
