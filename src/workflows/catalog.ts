// The trigger and action catalogs of the workflow builder. A node's `config`
// must match its entry's fields (src/workflows/graph.ts checks it). Every
// domain event (src/events/catalog.ts) is also a trigger.

import { EVENT_TYPES } from '../events/catalog.js';

export type ConfigFieldType = 'string' | 'integer' | 'boolean' | 'string[]' | 'object';

export interface ConfigField {
  type: ConfigFieldType;
  required?: boolean;
  enum?: readonly string[];
  min?: number;
  max?: number;
  description?: string;
}

export interface CatalogEntry {
  type: string;
  name: string;
  category: string;
  description: string;
  config: Record<string, ConfigField>;
}

const triggerFilters: Record<string, ConfigField> = {
  agent_id: { type: 'string', description: 'Only for this AI agent' },
  phone_number: { type: 'string', description: 'Only for this number of the company' },
};

/** An operator event's trigger may name the webhook it is about. */
const webhookFilter: Record<string, ConfigField> = {
  webhook_id: { type: 'string', description: 'Only about this webhook' },
};

export const TRIGGERS: CatalogEntry[] = EVENT_TYPES.map(([type, category, description]) => ({
  type,
  name: type
    .replace('.', ' ')
    .replace(/_/g, ' ')
    .replace(/^\w/, (c) => c.toUpperCase()),
  category,
  description,
  config:
    type === 'agent.performance'
      ? {
          ...triggerFilters,
          metric: { type: 'string', enum: ['answer_rate', 'appointment_rate', 'average_duration'] },
          threshold: { type: 'integer', min: 0 },
        }
      : category === 'operator'
        ? webhookFilter
        : triggerFilters,
}));

export const ACTIONS: CatalogEntry[] = [
  {
    type: 'send_sms',
    name: 'Send SMS',
    category: 'messaging',
    description: 'Send a text message from one of the company numbers',
    config: {
      message: { type: 'string', required: true, max: 1600 },
      from_number: { type: 'string', description: 'Defaults to the number of the triggering event' },
      to: { type: 'string', enum: ['contact', 'caller', 'called'], description: 'Defaults to contact' },
    },
  },
  {
    type: 'send_webhook',
    name: 'Send webhook',
    category: 'integration',
    description: 'POST the event to a URL, signed like every Switchboard webhook',
    config: {
      url: { type: 'string', required: true, description: 'http or https URL' },
      form_data: { type: 'string[]', description: 'Contact fields to include' },
    },
  },
  {
    type: 'move_to_pipeline_stage',
    name: 'Move to pipeline stage',
    category: 'crm',
    description: 'Move the contact to a stage of a pipeline',
    config: {
      pipeline_id: { type: 'string', required: true, description: 'Base64 pipeline id' },
      stage_id: { type: 'string', required: true, description: 'Base64 stage id' },
    },
  },
  {
    type: 'assign_agent',
    name: 'Assign AI agent',
    category: 'agents',
    description: 'Hand the contact to an AI agent',
    config: { agent_id: { type: 'string', required: true } },
  },
  {
    type: 'wait',
    name: 'Wait',
    category: 'flow',
    description: 'Pause before the next step',
    config: {
      amount: { type: 'integer', required: true, min: 1 },
      unit: { type: 'string', required: true, enum: ['minutes', 'hours', 'days'] },
    },
  },
  {
    type: 'branch',
    name: 'Branch',
    category: 'flow',
    description: 'Continue on one path or another depending on a condition',
    config: {
      field: { type: 'string', required: true, description: 'Event data field, such as call_status' },
      operator: {
        type: 'string',
        required: true,
        enum: ['equals', 'not_equals', 'contains', 'greater_than', 'less_than', 'exists'],
      },
      value: { type: 'string' },
    },
  },
  {
    type: 'add_tag',
    name: 'Add tag',
    category: 'crm',
    description: 'Tag the contact',
    config: { tag: { type: 'string', required: true, max: 100 } },
  },
];
