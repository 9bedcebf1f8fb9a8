import { BOUNDS, PAGE_BOUND, scalarValues, type Bound } from '../../kernel/bounds.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// Contacts (docs/design.md §4): their fields are the webhook form data fields.

const CONTACT =
  'id phone_number: phoneNumber email first_name: firstName last_name: lastName address city state zip ' +
  'country company_name: companyName tags custom_fields: customFields created_at: createdAt';
const text = (description: string, bound: Bound): RowParam => ({ ...bound, ...(description ? { description } : {}) });

const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Contacts', ...r });

export const contactRoutes: Route[] = [
  row({
    operationId: 'listContacts',
    methods: ['GET'],
    paths: ['/api/contacts'],
    summary: 'List contacts',
    description: 'Newest first.',
    params: {
      query: {
        search: { ...BOUNDS.search, description: 'Matches the number, the name or the email' },
        page: { ...PAGE_BOUND, description: 'Default 1' },
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
      },
    },
    document:
      `query ListContacts($search: String, $page: Int, $perPage: Int) { contacts(search: $search, page: ` +
      `$page, perPage: $perPage) { records { ${CONTACT} } ${PAGINATION} } }`,
    response: { field: 'contacts', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'createContact',
    methods: ['POST'],
    paths: ['/api/contacts'],
    summary: 'Create a contact',
    description: 'One contact per phone number.',
    params: {
      body: {
        phone_number: { description: 'E.164' },
        email: text('An email address', BOUNDS.contact.email),
        first_name: text('', BOUNDS.contact.firstName),
        last_name: text('', BOUNDS.contact.lastName),
        address: text('', BOUNDS.contact.address),
        city: text('', BOUNDS.contact.city),
        state: text('', BOUNDS.contact.state),
        zip: text('', BOUNDS.contact.zip),
        country: text('', BOUNDS.contact.country),
        company_name: text('', BOUNDS.contact.companyName),
        tags: { maxItems: BOUNDS.contact.tags.maxItems, items: { ...BOUNDS.contact.tags.items } },
        custom_fields: {
          maxProperties: BOUNDS.contact.customFields.maxItems,
          schema: scalarValues(BOUNDS.contact.customValue.maxLength),
          description:
            `Up to ${BOUNDS.contact.customFields.maxItems} keys; each value a string (at most ` +
            `${BOUNDS.contact.customValue.maxLength} characters), number, boolean or null`,
        },
      },
    },
    document: `mutation CreateContact($phoneNumber: String!, $email: String, $firstName: String, $lastName:
      String, $address: String, $city: String, $state: String, $zip: String, $country: String, $companyName:
      String, $tags: [String!], $customFields: JSONObject) {
      createContact(input: { phoneNumber: $phoneNumber, email: $email, firstName: $firstName, lastName: $lastName,
        address: $address, city: $city, state: $state, zip: $zip, country: $country, companyName: $companyName,
        tags: $tags, customFields: $customFields }) { ${CONTACT} } }`,
    response: { field: 'createContact', shape: 'envelope', message: 'Contact created successfully.', data: true },
    status: 201,
  }),
];
