import { LOCAL_PRESENCE } from '../../kernel/vocabulary.js';
import { BOUNDS, PAGE_BOUND, scalarValues } from '../../kernel/bounds.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';
import { FIELD_NAME } from '../../kernel/call-rules.js';

const filters: Record<string, RowParam> = {
  date_range: { description: 'Default Today; computed in the company time zone' },
  start_date: { description: 'Custom start, Y-m-d (with end_date; whole days, inclusive)' },
  end_date: { description: 'Custom end, Y-m-d' },
  agent_id: { description: 'All (default) or an agent id' },
  company_id: { description: 'Default the signed-in company; an agency may name a child company' },
  search: { ...BOUNDS.search, description: 'Matches the numbers, agent name, contact name or disposition' },
};
const FILTER_VARS =
  '$dateRange: DateRange, $startDate: String, $endDate: String, $agentId: String, $companyId: Int, $search: String';
const FILTER =
  'filter: { dateRange: $dateRange, startDate: $startDate, endDate: $endDate, agentId: $agentId, companyId: $companyId, search: $search }';
const NUMBERS = 'numbers { from to }';

export const dashboardRoutes: Route[] = [
  {
    operationId: 'listAppointmentCalls',
    answers: [403, 404],
    methods: ['GET'],
    paths: ['/api/ai/dashboard/appointments'],
    tag: 'AI dashboard',
    summary: 'Appointment Calls',
    description:
      'Calls in the date range that booked an appointment, newest first. call_datetime and appointment are ' +
      '"YYYY-MM-DD HH:mm:ss" in the company time zone; duration is in seconds.',
    params: {
      query: {
        ...filters,
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
        page: { ...PAGE_BOUND },
      },
    },
    document: `query AppointmentCalls(${FILTER_VARS}, $page: Int, $perPage: Int) {
      appointmentCalls(${FILTER}, page: $page, perPage: $perPage) {
        records { id call_datetime: callDatetime agent_name: agentName ${NUMBERS} duration appointment status
          direction sentiment recording_available: recordingAvailable }
        ${PAGINATION} } }`,
    response: { field: 'appointmentCalls', shape: 'envelope', data: true },
  },
  {
    operationId: 'getDashboardSummary',
    answers: [403, 404],
    methods: ['GET'],
    paths: ['/api/ai/dashboard/summary'],
    tag: 'AI dashboard',
    summary: 'Dashboard summary',
    description: 'Totals of every call in the range (same filters).',
    params: { query: filters },
    document: `query DashboardSummary(${FILTER_VARS}) { dashboardSummary(${FILTER}) {
      calls answered appointments average_duration: averageDuration sentiment { positive neutral negative unknown } from to time_zone: timeZone } }`,
    response: { field: 'dashboardSummary', shape: 'envelope', data: true },
  },
  {
    operationId: 'getCallDetails',
    answers: [403, 404],
    methods: ['GET'],
    paths: ['/api/ai/dashboard/calls/{id}'],
    tag: 'AI dashboard',
    summary: 'Call details',
    description:
      'One call with transcript, recording, disposition, tags and custom fields, and, for an inbound call the ' +
      'provider asked Switchboard to route, its decision (docs/call-routing.md).',
    params: {
      path: {
        id: {
          type: 'id',
          idKind: 'call',
          idForms: ['numeric', 'base64', 'encrypted'],
          description: 'Numeric, base64 or encrypted id',
        },
      },
    },
    document: `query CallDetails($id: ID!) { callDetails(id: $id) {
      id call_datetime: callDatetime agent_id: agentId agent_name: agentName ${NUMBERS} duration status direction sentiment
      recording_url: recordingUrl transcript disposition tags custom_fields: customFields appointment
      contact { name email phone } decision { decided_by: decidedBy action agent_id: agentId forward_to: forwardTo
      fallback_reason: fallbackReason reason latency_ms: latencyMs } } }`,
    response: { field: 'callDetails', shape: 'envelope', data: true },
  },
  {
    operationId: 'analyzeCall',
    answers: [409],
    methods: ['PUT'],
    paths: ['/api/ai/dashboard/calls/{id}/analysis'],
    tag: 'AI dashboard',
    summary: "Record a call's analysis",
    description:
      'The post-call analysis of an ended call (409 while it is in progress): call.analyzed when it is new ' +
      'or changed, nothing when it is the same again. A field left out keeps its value; custom_analysis ' +
      "replaces the call's analysis fields. The provider may report it instead (POST /api/telco/voice/analysis).",
    params: {
      path: {
        id: {
          type: 'id',
          idKind: 'call',
          idForms: ['numeric', 'base64', 'encrypted'],
          description: 'Numeric, base64 or encrypted id',
        },
      },
      body: {
        summary: { ...BOUNDS.analysis.summary, description: 'What the call was about' },
        sentiment: { description: 'positive, neutral or negative' },
        disposition: { ...BOUNDS.analysis.disposition, description: 'Outcome of the call' },
        successful: { description: 'Whether the call reached its goal' },
        custom_analysis: {
          maxProperties: BOUNDS.analysis.fields.maxItems,
          schema: scalarValues(BOUNDS.analysis.fieldValue.maxLength, FIELD_NAME),
          description:
            "The company's own fields: at most 50, named in lower case (a-z, 0-9, _), each a string (at most 1000 characters), a number, a boolean or null",
        },
        recording_url: { ...BOUNDS.analysis.recordingUrl, description: 'http or https URL of the recording' },
      },
    },
    document: `mutation AnalyzeCall($id: ID!, $summary: String, $sentiment: Sentiment, $disposition: String,
      $successful: Boolean, $customAnalysis: JSONObject, $recordingUrl: String) {
      analyzeCall(id: $id, analysis: { summary: $summary, sentiment: $sentiment, disposition: $disposition,
        successful: $successful, customAnalysis: $customAnalysis, recordingUrl: $recordingUrl }) {
        id sentiment disposition recording_url: recordingUrl summary successful custom_analysis: customAnalysis analyzed_at: analyzedAt } }`,
    response: { field: 'analyzeCall', shape: 'envelope', message: 'Call analysis recorded.', data: true },
  },
  {
    operationId: 'listCallAnalysisFields',
    methods: ['GET'],
    paths: ['/api/ai/dashboard/analysis-fields'],
    tag: 'AI dashboard',
    summary: 'Post-call analysis fields',
    description:
      "The company's declared analysis fields. None declared: custom_analysis takes any field of the free form.",
    params: {},
    document: 'query CallAnalysisFields { callAnalysisFields { name type description choices } }',
    response: { field: 'callAnalysisFields', shape: 'envelope', data: true },
  },
  {
    operationId: 'setCallAnalysisFields',
    methods: ['PUT'],
    paths: ['/api/ai/dashboard/analysis-fields'],
    tag: 'AI dashboard',
    summary: 'Set the post-call analysis fields',
    description:
      "Replaces the company's analysis fields. Once any are declared, every analysis (from the API or the " +
      "provider's callback) may hold only them, each of its type (null allowed); an empty list allows any " +
      'field again.',
    params: {
      body: {
        fields: {
          ...BOUNDS.analysis.fields,
          required: true,
          description: 'The fields, in order',
          items: {
            fields: {
              name: {
                ...BOUNDS.analysis.fieldName,
                pattern: FIELD_NAME.source,
                required: true,
                description: 'Lower-case letters, digits and underscores, starting with a letter',
              },
              type: {
                required: true,
                example: 'choice',
                description: 'What its values are; a choice field lists its choices',
              },
              description: { ...BOUNDS.analysis.fieldDescription },
              choices: {
                ...BOUNDS.analysis.choices,
                example: ['cleaning', 'checkup'],
                description: 'A choice field: at least one value',
              },
            },
          },
        },
      },
    },
    document:
      'mutation SetCallAnalysisFields($fields: [CallAnalysisFieldInput!]!) { setCallAnalysisFields(fields: $fields) { name type description choices } }',
    response: { field: 'setCallAnalysisFields', shape: 'envelope', message: 'Analysis fields saved.', data: true },
  },
  {
    operationId: 'updateLocalPresence',
    methods: ['PATCH'],
    paths: ['/api/ai/dashboard/settings/local-presence'],
    tag: 'AI dashboard',
    summary: 'Update Local Presence',
    description: "Which of the company's AI numbers local presence may use: All, or only the Unassigned ones.",
    params: {
      body: {
        number_ai_local_presence: { enum: LOCAL_PRESENCE, description: 'Which AI numbers local presence may use' },
      },
    },
    document:
      'mutation LocalPresence($numberAiLocalPresence: LocalPresence!) { ' +
      'updateLocalPresence(numberAiLocalPresence: $numberAiLocalPresence) { new_value: newValue } }',
    response: {
      field: 'updateLocalPresence',
      shape: 'envelope',
      message: 'Local presence setting updated successfully',
      data: true,
    },
  },
];
