import type { Campaign } from '../entities/campaign.entity.js';
import type { Lead } from '../entities/lead.entity.js';
import type { CampaignListed, LeadListed } from '../repositories/campaign.repository.js';
import type { Listed } from '../repositories/common.js';
import { type DialingRecord, dialingRecord } from './campaign-dialing.js';

// A campaign and a lead as the API serves them (services/campaign.service.ts).

/** A lead as the GraphQL Lead type serves it. */
export interface LeadRecord {
  id: number;
  contactId: number;
  /** Its contact's number (in lists). */
  phoneNumber?: string | null;
  campaignId: number | null;
  pipelineStageId: number | null;
  source: string | null;
  key: string | null;
  variables: Record<string, unknown>;
  timeZone: string | null;
  timeZones: string[];
  state: string | null;
  attempts: number;
  lastOutcome: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

/** A campaign as the GraphQL Campaign type serves it. */
export interface CampaignRecord {
  id: number;
  name: string;
  status: string;
  agentId: number | null;
  startedAt: Date | null;
  /** When a scheduled campaign starts. */
  startsAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  leads: number;
  dialing: DialingRecord;
}

export const campaignRecord = (campaign: Listed<Campaign, CampaignListed>): CampaignRecord => ({
  id: campaign.id,
  name: campaign.name,
  status: campaign.status,
  agentId: campaign.agent?.id ?? null,
  startedAt: campaign.startedAt,
  startsAt: campaign.startsAt,
  completedAt: campaign.completedAt,
  createdAt: campaign.createdAt,
  leads: campaign.leads ?? 0,
  dialing: dialingRecord(campaign),
});

export const leadRecord = (lead: Listed<Lead, LeadListed>): LeadRecord => ({
  id: lead.id,
  contactId: lead.contact.id,
  campaignId: lead.campaign?.id ?? null,
  pipelineStageId: lead.pipelineStage?.id ?? null,
  source: lead.source,
  key: lead.key,
  variables: lead.variables,
  timeZone: lead.timeZone,
  timeZones: lead.timeZones,
  state: lead.state,
  attempts: lead.attempts,
  lastOutcome: lead.lastOutcome,
  nextAttemptAt: lead.nextAttemptAt,
  createdAt: lead.createdAt,
});
