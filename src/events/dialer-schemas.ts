import { DIAL_OUTCOMES } from '../kernel/vocabulary.js';
import { dateTime, type EventSpec, int, nullable, str } from './schema-parts.js';

// The dialer's events (docs/dialer.md): a campaign paused, resumed or canceled, and a campaign's call to a lead ended.

export const DIALER_SPECS: Record<
  'campaign.paused' | 'campaign.resumed' | 'campaign.canceled' | 'lead.called',
  EventSpec
> = {
  'campaign.paused': {
    properties: { campaign_id: str('Campaign id'), name: str('Campaign name'), paused_at: dateTime('When it paused') },
    required: ['campaign_id', 'name', 'paused_at'],
    example: { campaign_id: '12', name: 'November reactivation', paused_at: '2026-11-18T18:00:00.000Z' },
  },
  'campaign.resumed': {
    properties: {
      campaign_id: str('Campaign id'),
      name: str('Campaign name'),
      resumed_at: dateTime('When it resumed'),
    },
    required: ['campaign_id', 'name', 'resumed_at'],
    example: { campaign_id: '12', name: 'November reactivation', resumed_at: '2026-11-19T14:00:00.000Z' },
  },
  'campaign.canceled': {
    properties: {
      campaign_id: str('Campaign id'),
      name: str('Campaign name'),
      canceled_at: dateTime('When it was canceled'),
      leads_canceled: int('Leads not dialed yet, now never dialed'),
    },
    required: ['campaign_id', 'name', 'canceled_at', 'leads_canceled'],
    example: {
      campaign_id: '12',
      name: 'November reactivation',
      canceled_at: '2026-11-19T16:00:00.000Z',
      leads_canceled: 87,
    },
  },
  'lead.called': {
    properties: {
      lead_id: str('Lead id'),
      campaign_id: str('Campaign id'),
      call_id: nullable(str('The call, when the provider placed it')),
      attempt: int('Which attempt this was, from 1'),
      outcome: str('How the call ended; skipped: the pre-dial decision said not to dial', { enum: [...DIAL_OUTCOMES] }),
      error: nullable(str("The provider's refusal, when it refused the dial; a skip's reason")),
      state: str("The lead's state now: waiting (a retry is due at next_attempt_at), or final"),
      next_attempt_at: nullable(dateTime('When it is dialed again, when it is')),
    },
    required: ['lead_id', 'campaign_id', 'call_id', 'attempt', 'outcome', 'error', 'state', 'next_attempt_at'],
    example: {
      lead_id: '301',
      campaign_id: '12',
      call_id: '5013',
      attempt: 1,
      outcome: 'no_answer',
      error: null,
      state: 'waiting',
      next_attempt_at: '2026-11-18T18:35:00.000Z',
    },
  },
};
