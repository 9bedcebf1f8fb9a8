import type { IdCodec } from '../../kernel/ids.js';
import { dbDate } from '../../db/reads.js';
import { formatWallClock } from '../../kernel/time/zoned.js';
import type { CallDecision } from '../../kernel/call-decision.js';
import { decisionOf, type DecisionColumns } from './inbound.js';

// The calls aggregate's records (its statements are in statements.ts): a
// call as the provider's callbacks advance it, and what the AI dashboard
// serves, in the shapes its GraphQL types have. Wall-clock times are
// "YYYY-MM-DD HH:mm:ss" in the company's zone: formatted by PostgreSQL for
// the list, here for one call.

export interface AppointmentCallRecord {
  id: number;
  callDatetime: string;
  agentName: string | null;
  numbers: { from: string; to: string };
  /** Seconds. */
  duration: number;
  appointment: string;
  status: string;
  direction: string;
  sentiment: string | null;
  recordingAvailable: boolean;
  readonly startedAt: Date;
  readonly appointmentAt: Date;
}

/** A row of the appointment list, as the statement reads it. */
export interface AppointmentCallRow {
  id: number;
  started_at: string;
  appointment_at: string;
  call_datetime: string;
  appointment: string;
  agent_name: string | null;
  from_number: string;
  to_number: string;
  duration_seconds: number;
  status: string;
  direction: string;
  sentiment: string | null;
  recording_available: boolean;
}

export const appointmentCallRecord = (row: AppointmentCallRow): AppointmentCallRecord => ({
  id: row.id,
  callDatetime: row.call_datetime,
  agentName: row.agent_name,
  numbers: { from: row.from_number, to: row.to_number },
  duration: row.duration_seconds,
  appointment: row.appointment,
  status: row.status,
  direction: row.direction,
  sentiment: row.sentiment,
  recordingAvailable: row.recording_available,
  // Read as dates only when asked for (the REST list shows the wall clock only).
  get startedAt() {
    return dbDate(row.started_at);
  },
  get appointmentAt() {
    return dbDate(row.appointment_at);
  },
});

export interface CallDetailsRecord {
  id: number;
  encryptedId: string;
  callDatetime: string;
  startedAt: Date;
  agentId: number | null;
  agentName: string | null;
  numbers: { from: string; to: string };
  duration: number;
  status: string;
  direction: string;
  sentiment: string | null;
  recordingUrl: string | null;
  recordingAvailable: boolean;
  transcript: string | null;
  disposition: string | null;
  tags: string[];
  customFields: Record<string, unknown>;
  appointment: string | null;
  appointmentAt: Date | null;
  contact: { name: string | null; email: string | null; phone: string };
  summary: string | null;
  successful: boolean | null;
  customAnalysis: Record<string, unknown>;
  analyzedAt: Date | null;
  /** How the call was routed, when the provider asked Switchboard (inbound calls). */
  decision: CallDecision | null;
}

/** A call's row with its company's zone and family and its agent's name: what the dashboard shows of one call. */
export interface CallDetailsRow extends DecisionColumns {
  id: number;
  company_id: number;
  company_parent_id: number | null;
  time_zone: string;
  agent_name: string | null;
  from_number: string;
  to_number: string;
  started_at: string;
  duration_seconds: number;
  status: string;
  direction: string;
  sentiment: string | null;
  recording_url: string | null;
  transcript: string | null;
  disposition: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  appointment_at: string | null;
  contact_name: string | null;
  contact_email: string | null;
  summary: string | null;
  successful: boolean | null;
  custom_analysis: Record<string, unknown>;
  analyzed_at: string | null;
}

export const callDetailsRecord = (ids: IdCodec, row: CallDetailsRow): CallDetailsRecord => {
  const startedAt = dbDate(row.started_at);
  const appointmentAt = dbDate(row.appointment_at);
  return {
    id: row.id,
    encryptedId: ids.encrypt('call', row.id),
    callDatetime: formatWallClock(startedAt, row.time_zone),
    startedAt,
    agentId: row.agent_id,
    agentName: row.agent_name,
    numbers: { from: row.from_number, to: row.to_number },
    duration: row.duration_seconds,
    status: row.status,
    direction: row.direction,
    sentiment: row.sentiment,
    recordingUrl: row.recording_url,
    recordingAvailable: !!row.recording_url,
    transcript: row.transcript,
    disposition: row.disposition,
    tags: row.tags,
    customFields: row.custom_fields,
    decision: decisionOf(row),
    appointment: appointmentAt ? formatWallClock(appointmentAt, row.time_zone) : null,
    appointmentAt,
    contact: {
      name: row.contact_name,
      email: row.contact_email,
      phone: row.direction === 'inbound' ? row.from_number : row.to_number,
    },
    summary: row.summary,
    successful: row.successful,
    customAnalysis: row.custom_analysis,
    analyzedAt: dbDate(row.analyzed_at),
  };
};

/** A call's post-call analysis: what call.analyzed reports. */
export interface CallAnalysis {
  summary: string | null;
  sentiment: string | null;
  disposition: string | null;
  successful: boolean | null;
  customAnalysis: Record<string, string | number | boolean | null>;
  recordingUrl: string | null;
}

/** A call as an analysis changes it: the analysis and what the event says of the call. */
export interface AnalysedCall extends CallAnalysis {
  id: number;
  status: string;
  agentId: number | null;
  fromNumber: string;
  toNumber: string;
  direction: string;
  contactId: number | null;
  analyzedAt: Date | null;
}

export interface AnalysedCallRow {
  id: number;
  status: string;
  agent_id: number | null;
  from_number: string;
  to_number: string;
  direction: string;
  contact_id: number | null;
  summary: string | null;
  sentiment: string | null;
  disposition: string | null;
  successful: boolean | null;
  custom_analysis: Record<string, string | number | boolean | null>;
  recording_url: string | null;
  analyzed_at: Date | string | null;
}

/** What every call record says of the call itself: its id, status, agent, numbers and direction. */
const callParties = (
  row: Pick<CallStateRow, 'id' | 'status' | 'agent_id' | 'from_number' | 'to_number' | 'direction'>,
) => ({
  id: row.id,
  status: row.status,
  agentId: row.agent_id,
  fromNumber: row.from_number,
  toNumber: row.to_number,
  direction: row.direction,
});

export const analysedCall = (row: AnalysedCallRow): AnalysedCall => ({
  ...callParties(row),
  contactId: row.contact_id,
  summary: row.summary,
  sentiment: row.sentiment,
  disposition: row.disposition,
  successful: row.successful,
  customAnalysis: row.custom_analysis,
  recordingUrl: row.recording_url,
  analyzedAt: dbDate(row.analyzed_at),
});

/** A call as the provider's callbacks advance it. */
export interface CallState {
  id: number;
  status: string;
  agentId: number | null;
  fromNumber: string;
  toNumber: string;
  direction: string;
  durationSeconds: number;
  startedAt: Date;
  answeredAt: Date | null;
  transferredTo: string | null;
  recordingUrl: string | null;
  transcript: string | null;
  sentiment: string | null;
  disposition: string | null;
  tags: string[];
  customFields: Record<string, unknown>;
  appointmentAt: Date | null;
}

export interface CallStateRow {
  id: number;
  status: string;
  agent_id: number | null;
  from_number: string;
  to_number: string;
  direction: string;
  duration_seconds: number;
  started_at: Date | string;
  answered_at: Date | string | null;
  transferred_to: string | null;
  recording_url: string | null;
  transcript: string | null;
  sentiment: string | null;
  disposition: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  appointment_at: Date | string | null;
}

export const callState = (row: CallStateRow): CallState => ({
  ...callParties(row),
  durationSeconds: row.duration_seconds,
  startedAt: dbDate(row.started_at),
  answeredAt: dbDate(row.answered_at),
  transferredTo: row.transferred_to,
  recordingUrl: row.recording_url,
  transcript: row.transcript,
  sentiment: row.sentiment,
  disposition: row.disposition,
  tags: row.tags,
  customFields: row.custom_fields,
  appointmentAt: dbDate(row.appointment_at),
});
