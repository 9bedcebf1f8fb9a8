import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

// Dialer campaigns and leads, and booking a call's appointment (docs/design.md §4).

const CAMPAIGN =
  'id name status agent_id: agentId started_at: startedAt completed_at: completedAt created_at: createdAt leads';
const LEAD =
  'id contact_id: contactId campaign_id: campaignId pipeline_stage_id: pipelineStageId source created_at: createdAt';
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
    params: { body: { name: { ...BOUNDS.campaign.name }, agent_id: { description: 'The AI agent that dials' } } },
    document: `mutation CreateCampaign($name: String!, $agentId: ID) { createCampaign(name: $name, agentId: $agentId) { ${CAMPAIGN} } }`,
    response: { field: 'createCampaign', shape: 'envelope', message: 'Campaign created successfully.', data: true },
    status: 201,
  }),
  row({
    operationId: 'startCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/start'],
    summary: 'Start a campaign',
    description: 'A draft starts running: campaign.started.',
    params: { path: { id: campaignId } },
    document: `mutation StartCampaign($id: ID!) { startCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'startCampaign', shape: 'envelope', message: 'Campaign started.', data: true },
  }),
  row({
    operationId: 'completeCampaign',
    answers: [409],
    methods: ['POST'],
    paths: ['/api/campaigns/{id}/complete'],
    summary: 'Complete a campaign',
    description: 'A running campaign completes: campaign.completed.',
    params: { path: { id: campaignId } },
    document: `mutation CompleteCampaign($id: ID!) { completeCampaign(id: $id) { ${CAMPAIGN} } }`,
    response: { field: 'completeCampaign', shape: 'envelope', message: 'Campaign completed.', data: true },
  }),
  row({
    operationId: 'listLeads',
    methods: ['GET'],
    paths: ['/api/leads'],
    summary: 'List leads',
    description: 'Newest first.',
    params: { query: { campaign_id: { description: 'Only the leads of this campaign' }, ...paging } },
    document:
      `query ListLeads($campaignId: ID, $page: Int, $perPage: Int) { leads(campaignId: $campaignId, page: ` +
      `$page, perPage: $perPage) { records { ${LEAD} } ${PAGINATION} } }`,
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
