import { BOUNDS, PAGE_BOUND, scalarValues } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// Dialer campaigns and leads, and booking a call's appointment (docs/design.md §4).

const CAMPAIGN =
  'id name status agent_id: agentId started_at: startedAt starts_at: startsAt completed_at: completedAt ' +
  'created_at: createdAt leads dialing { concurrency from_number: fromNumber hours_start: hoursStart hours_end: ' +
  'hoursEnd calling_days: callingDays ring_seconds: ringSeconds max_attempts: maxAttempts retry_minutes: ' +
  'retryMinutes retry_on: retryOn predial_endpoint_id: predialEndpointId predial_fallback: predialFallback }';
const PROGRESS =
  'total pending dialing waiting answered no_answer: noAnswer busy voicemail failed do_not_call: doNotCall ' +
  'outside_hours: outsideHours canceled skipped';
const LEAD =
  'id contact_id: contactId phone_number: phoneNumber campaign_id: campaignId pipeline_stage_id: pipelineStageId source key variables ' +
  'time_zone: timeZone time_zones: timeZones state attempts last_outcome: lastOutcome next_attempt_at: nextAttemptAt ' +
  'created_at: createdAt';
const ATTEMPT =
  'attempt state outcome error call_id: callId call_sid: callSid dialed_at: dialedAt ended_at: endedAt decision { ' +
  'decided_by: decidedBy action variables fallback_reason: fallbackReason reason latency_ms: latencyMs }';
const IMPORT = 'campaign_id: campaignId added duplicates rejected leads errors { index line column value message }';
const campaignId: RowParam = {
  type: 'id',
  idKind: 'campaign',
  idForms: ALL_ID_FORMS,
  description: 'Campaign id: numeric, base64 or encrypted',
};
const paging = {
  page: { ...PAGE_BOUND, description: 'Default 1' },
  per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100' },
} as const;

const row = (r: Omit<Route, 'tag'>): Route => ({ tag: 'Campaigns and leads', ...r });

export const campaignRoutes: Route[] = [
  row({
    operationId: 'listCampaigns',
    methods: ['GET'],
    paths: ['/api/campaigns'],
    summary: 'List dialer campaigns',
    description: 'Newest first.',
    params: { query: { status: {}, ...paging } },
    document:
      `query ListCampaigns($status: CampaignStatus, $page: Int, $perPage: Int) { campaigns(status: ` +
      `$status, page: $page, perPage: $perPage) { records { ${CAMPAIGN} } ${PAGINATION} } }`,
    response: { field: 'campaigns', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'createCampaign',
    methods: ['POST'],
    paths: ['/api/campaigns'],
    summary: 'Create a dialer campaign',
    description: 'A draft.',
    params: {
      body: {
        name: { ...BOUNDS.campaign.name },
        agent_id: { description: 'The AI agent that dials' },
        dialing: {
          description: 'How it dials (docs/dialer.md); each field left out keeps its default',
          fields: {
            concurrency: { ...BOUNDS.campaign.concurrency, description: 'Calls at once; default 10' },
            from_number: {
              example: '+14155550100',
              description: "One of the company's numbers (E.164); default its first for the dialer",
            },
            hours_start: {
              ...BOUNDS.campaign.hours,
              example: '08:00',
              description: "Calling hours start in each lead's own time, HH:MM; default 08:00",
            },
            hours_end: {
              ...BOUNDS.campaign.hours,
              example: '21:00',
              description: 'Calling hours end, HH:MM (24:00 at most); default 21:00',
            },
            calling_days: {
              ...BOUNDS.campaign.callingDays,
              description: '1 (Monday) to 7 (Sunday); default every day',
            },
            ring_seconds: {
              ...BOUNDS.campaign.ringSeconds,
              description: 'Seconds a call rings before it is no answer; default 25',
            },
            max_attempts: { ...BOUNDS.campaign.maxAttempts, description: 'Attempts a lead gets at most; default 3' },
            retry_minutes: {
              ...BOUNDS.campaign.retryMinutes,
              description: 'Minutes before each retry (the last repeats); default 30, 60, 120',
            },
            retry_on: {
              example: ['no_answer', 'busy'],
              description: 'The outcomes retried (any but answered and skipped); default no_answer and busy',
            },
            predial_endpoint_id: {
              description:
                "One of the company's decision endpoints, asked before each dial: dial, skip, or dial with " +
                'variables (docs/dialer.md); default none',
            },
            predial_fallback: { description: 'When that endpoint gives no answer in time: dial (default) or skip' },
          },
        },
      },
    },
    document: `mutation CreateCampaign($name: String!, $agentId: ID, $dialing: CampaignDialingInput) {
      createCampaign(name: $name, agentId: $agentId, dialing: $dialing) { ${CAMPAIGN} } }`,
    response: { field: 'createCampaign', shape: 'envelope', message: 'Campaign created successfully.', data: true },
    status: 201,
  }),
  row({
    operationId: 'getCampaign',
    methods: ['GET'],
    paths: ['/api/campaigns/{id}'],
    summary: 'A campaign',
    description: 'With its lead count and how it dials.',
    params: { path: { id: campaignId } },
    document: `query Campaign($id: ID!) { campaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'campaign', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'startCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/start'],
    summary: 'Start a campaign',
    description: 'A draft (or scheduled) campaign starts running now: campaign.started.',
    params: { path: { id: campaignId } },
    document: `mutation StartCampaign($id: ID!) { startCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'startCampaign', shape: 'envelope', message: 'Campaign started.', data: true },
  }),
  row({
    operationId: 'scheduleCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/schedule'],
    summary: 'Schedule a campaign',
    description:
      'A draft (or scheduled) campaign starts at `start_at`, up to 90 days ahead: the dialer starts it then, with ' +
      'campaign.started. Start it sooner with /start, or cancel it.',
    params: {
      path: { id: campaignId },
      body: {
        start_at: {
          type: 'string',
          required: true,
          example: '2026-12-01T14:00:00Z',
          description: 'ISO 8601, with its offset',
        },
      },
    },
    document: `mutation ScheduleCampaign($id: ID!, $startAt: String!) {
      scheduleCampaign(id: $id, startAt: $startAt) { ${CAMPAIGN} } }`,
    response: { field: 'scheduleCampaign', shape: 'envelope', message: 'Campaign scheduled.', data: true },
  }),
  row({
    operationId: 'pauseCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/pause'],
    summary: 'Pause a campaign',
    description: 'A running campaign dials no more; calls on the line finish.',
    params: { path: { id: campaignId } },
    document: `mutation PauseCampaign($id: ID!) { pauseCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'pauseCampaign', shape: 'envelope', message: 'Campaign paused.', data: true },
  }),
  row({
    operationId: 'resumeCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/resume'],
    summary: 'Resume a campaign',
    description: 'A paused campaign dials again where it stopped.',
    params: { path: { id: campaignId } },
    document: `mutation ResumeCampaign($id: ID!) { resumeCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'resumeCampaign', shape: 'envelope', message: 'Campaign resumed.', data: true },
  }),
  row({
    operationId: 'cancelCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/cancel'],
    summary: 'Cancel a campaign',
    description: 'Its leads not dialed yet are canceled and never dialed; calls on the line finish.',
    params: { path: { id: campaignId } },
    document: `mutation CancelCampaign($id: ID!) { cancelCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'cancelCampaign', shape: 'envelope', message: 'Campaign canceled.', data: true },
  }),
  row({
    operationId: 'getCampaignProgress',
    methods: ['GET'],
    paths: ['/api/campaigns/{id}/progress'],
    summary: "A campaign's progress",
    description: 'Its leads by state; they add up to `total`.',
    params: { path: { id: campaignId } },
    document: `query CampaignProgress($id: ID!) { campaignProgress(id: $id) { ${PROGRESS} } }`,
    response: { field: 'campaignProgress', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'completeCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/complete'],
    summary: 'Complete a campaign',
    description:
      'A running or paused campaign completes: campaign.completed. The dialer completes one by itself when its leads are all final.',
    params: { path: { id: campaignId } },
    document: `mutation CompleteCampaign($id: ID!) { completeCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'completeCampaign', shape: 'envelope', message: 'Campaign completed.', data: true },
  }),
  row({
    operationId: 'listLeadAttempts',
    methods: ['GET'],
    paths: ['/api/leads/{id}/attempts'],
    summary: "A lead's attempts",
    description:
      'Each attempt its campaign made, in order: its outcome, its call and, when the campaign asks before each ' +
      'dial, the pre-dial decision.',
    params: {
      path: {
        id: { type: 'id', idKind: 'lead', idForms: ALL_ID_FORMS, description: 'Lead id: numeric, base64 or encrypted' },
      },
    },
    document: `query LeadAttempts($id: ID!) { leadAttempts(leadId: $id) { ${ATTEMPT} } }`,
    response: { field: 'leadAttempts', shape: 'envelope', data: true },
  }),
  row({
    operationId: 'addCampaignLeads',
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/leads'],
    summary: 'Add leads to a campaign',
    description:
      'One to 1,000 leads, each with the variables its agent is told; a campaign holds up to 100,000. A lead whose ' +
      'key (default: its number) the campaign has already is a duplicate, not a second lead. A bad lead is named ' +
      'with its place, field and value: with `on_error: reject` (the default) nothing is added (422); with `skip` ' +
      'the good ones are, and the bad ones are listed in `errors`. lead.generated for each lead added.',
    params: {
      path: { id: campaignId },
      body: {
        leads: {
          ...BOUNDS.campaign.leads,
          required: true,
          description: 'The leads',
          items: {
            fields: {
              phone_number: { description: 'E.164' },
              key: {
                ...BOUNDS.campaign.leadKey,
                description: 'The campaign has a lead once per key; default: its number',
              },
              first_name: { ...BOUNDS.contact.firstName, description: 'For its contact, when the number is new' },
              last_name: { ...BOUNDS.contact.lastName, description: 'For its contact, when the number is new' },
              email: { ...BOUNDS.contact.email, description: 'For its contact, when the number is new' },
              time_zone: {
                ...BOUNDS.campaign.timeZone,
                description: "IANA zone its calling hours are kept in; default: its number's zones",
              },
              source: { ...BOUNDS.campaign.leadSource, description: 'Where the lead came from' },
              variables: {
                ...BOUNDS.campaign.variables,
                schema: scalarValues(BOUNDS.campaign.variableValue.maxLength),
                description:
                  `What its agent is told: up to ${BOUNDS.campaign.variables.maxProperties} names (a letter or _, ` +
                  `then letters, digits or _), each a string (at most ${BOUNDS.campaign.variableValue.maxLength} ` +
                  'characters), number or boolean',
              },
            },
          },
        },
        on_error: { description: 'reject (default): a bad lead and none is added; skip: the good ones are' },
      },
    },
    document: `mutation AddCampaignLeads($id: ID!, $leads: [CampaignLeadInput!]!, $onError: LeadErrorMode) {
      addCampaignLeads(campaignId: $id, leads: $leads, onError: $onError) { ${IMPORT} } }`,
    response: { field: 'addCampaignLeads', shape: 'envelope', message: 'Leads added.', data: true },
    status: 201,
  }),
  row({
    operationId: 'importCampaignLeads',
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/leads/import'],
    summary: 'Import leads into a campaign from a CSV file',
    description:
      'The body is the file (`text/csv`, UTF-8, at most 16 MiB). Line 1 names the columns: `phone_number` (E.164), ' +
      'and any of `key`, `first_name`, `last_name`, `email`, `time_zone`, `source`; every other column is a ' +
      'variable its agent is told (an empty cell is none). A bad row is named with its line, column and value: ' +
      'with `on_error=reject` (the default) nothing is added (422); with `skip` the good rows are, and the bad ones ' +
      'are listed in `errors`. Duplicates and bounds as for adding leads as JSON.',
    bodyType: 'csv',
    params: {
      path: { id: campaignId },
      query: { on_error: { description: 'reject (default): a bad row and none is added; skip: the good ones are' } },
      body: {
        csv: {
          ...BOUNDS.campaign.csv,
          description: 'The CSV file',
          example:
            'phone_number,first_name,time_zone,plan\n+14155550101,Ann,,gold\n+12125550102,Bob,America/New_York,\n',
        },
      },
    },
    document: `mutation ImportCampaignLeads($id: ID!, $csv: String!, $onError: LeadErrorMode) {
      importCampaignLeads(campaignId: $id, csv: $csv, onError: $onError) { ${IMPORT} } }`,
    response: { field: 'importCampaignLeads', shape: 'envelope', message: 'Leads imported.', data: true },
    status: 201,
  }),
  row({
    operationId: 'listLeads',
    methods: ['GET'],
    paths: ['/api/leads'],
    summary: 'List leads',
    description: 'Newest first.',
    params: {
      query: {
        campaign_id: { description: 'Only the leads of this campaign' },
        state: { description: 'Only the leads in this state' },
        ...paging,
      },
    },
    document:
      `query ListLeads($campaignId: ID, $state: LeadState, $page: Int, $perPage: Int) { leads(campaignId: ` +
      `$campaignId, state: $state, page: $page, perPage: $perPage) { records { ${LEAD} } ${PAGINATION} } }`,
    response: { field: 'leads', shape: 'envelope', data: true },
    answers: [404],
  }),
  row({
    operationId: 'createLead',
    methods: ['POST'],
    paths: ['/api/leads'],
    summary: 'Create a lead',
    description:
      'A contact (by id, or by phone number: made when new) in a campaign or a pipeline stage: lead.generated.',
    params: {
      body: {
        contact_id: { description: 'A contact of the company' },
        phone_number: { description: 'E.164; the contact is made when new' },
        campaign_id: { description: 'A draft or running campaign' },
        pipeline_stage_id: { description: 'A stage of one of the company pipelines' },
        source: { ...BOUNDS.campaign.leadSource, description: 'Where the lead came from' },
      },
    },
    document: `mutation CreateLead($contactId: ID, $phoneNumber: String, $campaignId: ID, $pipelineStageId: ID, $source: String) {
      createLead(contactId: $contactId, phoneNumber: $phoneNumber, campaignId: $campaignId, pipelineStageId: $pipelineStageId, source: $source) { ${LEAD} } }`,
    response: { field: 'createLead', shape: 'envelope', message: 'Lead created successfully.', data: true },
    status: 201,
  }),
  row({
    operationId: 'bookCallAppointment',
    methods: ['PUT'],
    paths: ['/api/ai/dashboard/calls/{id}/appointment'],
    summary: "Book or move a call's appointment",
    description: 'appointment.scheduled when the time is new; the call then appears in the appointment list.',
    params: {
      path: {
        id: {
          type: 'id',
          idKind: 'call',
          idForms: ['numeric', 'base64', 'encrypted'],
          description: 'Numeric, base64 or encrypted id',
        },
      },
      body: { appointment_at: { description: 'ISO 8601 date-time' } },
    },
    document:
      `mutation BookCallAppointment($id: ID!, $appointmentAt: String!) { bookCallAppointment(id: $id, ` +
      `appointmentAt: $appointmentAt) { call_id: id appointment_at: appointmentAt } }`,
    response: {
      field: 'bookCallAppointment',
      shape: 'envelope',
      message: 'Appointment booked successfully.',
      data: true,
    },
  }),
];
