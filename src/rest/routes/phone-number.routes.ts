import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

const numberId: RowParam = {
  type: 'id',
  idKind: 'phone_number',
  idLabel: 'Phone number',
  idForms: ALL_ID_FORMS,
  description: 'Numeric, base64 or encrypted id',
};
const NUMBER = `id base64_id: base64Id status use_for: useFor dialable phone_no: phoneNo provider ai_active: aiActive
  phone_type: phoneType phone_title: phoneTitle has_spam_protection: hasSpamProtection tendlcs chatbot_agent_id: chatbotAgentId`;

export const phoneNumberRoutes: Route[] = [
  {
    operationId: 'listPhoneNumbers',
    methods: ['GET'],
    paths: ['/api/phone-numbers'],
    tag: 'Phone numbers',
    summary: 'List phone numbers',
    description: 'Newest first.',
    params: {
      query: {
        search: { ...BOUNDS.search, description: 'Matches the number or its title' },
        use_for: {},
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND },
      },
    },
    document: `query PhoneNumbers($search: String, $useFor: NumberUse, $page: Int, $perPage: Int) {
      phoneNumbers(search: $search, useFor: $useFor, page: $page, perPage: $perPage) { records { ${NUMBER} } ${PAGINATION} } }`,
    response: { field: 'phoneNumbers', shape: 'envelope', data: true },
  },
  {
    operationId: 'updatePhoneNumber',
    methods: ['PUT'],
    paths: ['/api/phone-numbers/{id}'],
    tag: 'Phone numbers',
    summary: 'Update Phone Number',
    description: 'Send only the fields to change.',
    params: {
      path: { id: numberId },
      body: {
        phone_title: { ...BOUNDS.phoneNumber.title },
        status: {},
        use_for: {},
        phone_type: {},
        tendlc: { description: 'Answered as tendlcs' },
      },
    },
    document: `mutation UpdatePhoneNumber($id: ID!, $phoneTitle: String, $status: PhoneNumberStatus, $useFor:
      NumberUse, $phoneType: PhoneType, $tendlc: TendlcAnswer) {
      updatePhoneNumber(id: $id, input: { phoneTitle: $phoneTitle, status: $status, useFor: $useFor, phoneType: $phoneType, tendlc: $tendlc }) { ${NUMBER} } }`,
    response: {
      field: 'updatePhoneNumber',
      shape: 'envelope',
      message: 'Phone number updated successfully.',
      data: true,
    },
  },
  {
    operationId: 'purchasePhoneNumber',
    answers: [502],
    methods: ['POST'],
    paths: ['/api/phone-numbers/purchase'],
    tag: 'Phone numbers',
    summary: 'Purchase Phone Number',
    description:
      'Buys a number found by the available-number search. The provider credentials and balance must be ' +
      "set first. A refusal by the provider is 422 with the provider's text in message; an unreachable " +
      'provider is 502.',
    params: {
      body: {
        provider: { description: 'The telephony provider name: telco' },
        phoneNo: {
          required: true,
          aliases: ['baseNo'],
          description: 'The purchase_token of the available-number search',
        },
      },
    },
    document:
      'mutation Purchase($provider: String!, $phoneNo: String!) { purchasePhoneNumber(provider: $provider, phoneNo: $phoneNo) { success message } }',
    response: { field: 'purchasePhoneNumber', shape: 'plain' },
  },
  {
    operationId: 'importTelcoNumber',
    answers: [502],
    methods: ['POST'],
    paths: ['/api/phone-numbers/import-telco'],
    tag: 'Phone numbers',
    summary: 'Import Number',
    description:
      "Imports a number of the company's provider account (an import_token from GET /api/phone-numbers/import-telco) as one of its phone numbers.",
    params: { body: { import_token: { description: 'From the list of importable numbers' } } },
    document:
      'mutation ImportNumber($importToken: String!) { importTelcoNumber(importToken: $importToken) { success message } }',
    response: { field: 'importTelcoNumber', shape: 'plain' },
  },
  {
    operationId: 'importTelcoCampaign',
    answers: [502],
    methods: ['POST'],
    paths: ['/api/phone-numbers/import-telco-campaigns'],
    tag: 'Phone numbers',
    summary: 'Import Messaging Campaign',
    description:
      "Imports one A2P campaign; the messaging service's inbound and status webhooks are then pointed at this service.",
    params: {
      body: {
        messaging_service_sid: {
          ...BOUNDS.telco.messagingServiceSid,
          description: 'From the list of importable campaigns',
        },
      },
    },
    document:
      'mutation ImportCampaign($messagingServiceSid: String!) { importTelcoCampaign(messagingServiceSid: $messagingServiceSid) { success message } }',
    response: { field: 'importTelcoCampaign', shape: 'plain' },
  },
  {
    operationId: 'listChatbotAgents',
    methods: ['GET'],
    paths: ['/api/phone-numbers/dsi-agents'],
    tag: 'Phone numbers',
    summary: 'List Agents for Chatbot',
    description: "Active agents assignable as the number's inbound chatbot, 15 a page. No success envelope.",
    params: {
      query: {
        q: { ...BOUNDS.search, description: 'Matches the agent name' },
        id: { description: 'Return just that agent' },
        page: { ...PAGE_BOUND, description: 'Default 1' },
      },
    },
    document:
      'query ChatbotAgents($q: String, $id: String, $page: Int) { chatbotAgents(q: $q, id: $id, page: $page) { results { id text } pagination { more } } }',
    response: { field: 'chatbotAgents', shape: 'plain' },
  },
  {
    operationId: 'searchAvailableNumbers',
    answers: [502],
    methods: ['GET'],
    paths: ['/api/phone-numbers/available'],
    tag: 'Phone numbers',
    summary: 'Search available numbers',
    description:
      'Numbers for sale at the provider; each row has a purchase_token (signed, valid 15 minutes, usable once).',
    params: {
      query: {
        area_code: { description: 'Three digits' },
        contains: { description: 'Digits the number contains' },
        phone_type: { description: 'Default local' },
      },
    },
    document: `query Available($areaCode: String, $contains: String, $phoneType: PhoneType) {
      availablePhoneNumbers(areaCode: $areaCode, contains: $contains, phoneType: $phoneType) {
        phone_number: phoneNumber friendly_name: friendlyName region phone_type: phoneType price purchase_token: purchaseToken } }`,
    response: { field: 'availablePhoneNumbers', shape: 'envelope', data: true },
  },
  {
    operationId: 'listImportableNumbers',
    answers: [502],
    methods: ['GET'],
    paths: ['/api/phone-numbers/import-telco'],
    tag: 'Phone numbers',
    summary: 'List importable numbers',
    description: "Numbers on the company's provider account not imported yet, each with an import_token.",
    params: {},
    document: `query Importable { importableTelcoNumbers {
      phone_number: phoneNumber friendly_name: friendlyName phone_type: phoneType provider_sid: providerSid import_token: importToken } }`,
    response: { field: 'importableTelcoNumbers', shape: 'envelope', data: true },
  },
  {
    operationId: 'listImportableCampaigns',
    answers: [502],
    methods: ['GET'],
    paths: ['/api/phone-numbers/import-telco-campaigns'],
    tag: 'Phone numbers',
    summary: 'List importable campaigns',
    description: "A2P campaigns of the account's messaging services not imported yet.",
    params: {},
    document: `query ImportableCampaigns { importableTelcoCampaigns {
      messaging_service_sid: messagingServiceSid name campaign_sid: campaignSid status use_case: useCase } }`,
    response: { field: 'importableTelcoCampaigns', shape: 'envelope', data: true },
  },
  {
    operationId: 'assignChatbot',
    methods: ['PUT'],
    paths: ['/api/phone-numbers/{id}/chatbot'],
    tag: 'Phone numbers',
    summary: 'Assign chatbot',
    description: "Puts an active agent on the number's inbound chatbot; agent_id null clears it.",
    params: {
      path: { id: numberId },
      body: { agent_id: { type: 'id', required: true, nullable: true, description: 'Agent id, or null to clear' } },
    },
    document: `mutation AssignChatbot($id: ID!, $agentId: ID) { assignChatbot(id: $id, agentId: $agentId) { ${NUMBER} } }`,
    response: { field: 'assignChatbot', shape: 'envelope', message: 'Chatbot updated successfully.', data: true },
  },
];
