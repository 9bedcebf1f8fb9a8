import type { Call } from '../../entities/call.entity.js';
import type { CallDecision } from '../../kernel/call-decision.js';
import type { IdCodec } from '../../kernel/ids.js';
import { formatWallClock } from '../../kernel/time/zoned.js';
import type { AppointmentRow } from '../../repositories/call-reads.repository.js';

// What the AI dashboard serves of a call, in the shapes its GraphQL types have, and the one mapping from the call's
// entity (or a row of the appointment list) to each. Wall-clock times are "YYYY-MM-DD HH:mm:ss" in the company's
// zone: formatted by PostgreSQL for the list, here for one call.

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
  startedAt: Date;
  appointmentAt: Date;
}

export const appointmentCallRecord = (row: AppointmentRow): AppointmentCallRecord => ({
  id: row.id,
  callDatetime: row.callDatetime,
  agentName: row.agentName,
  numbers: { from: row.fromNumber, to: row.toNumber },
  duration: row.durationSeconds,
  appointment: row.appointment,
  status: row.status,
  direction: row.direction,
  sentiment: row.sentiment ?? null,
  recordingAvailable: row.recordingAvailable,
  startedAt: row.startedAt,
  appointmentAt: row.appointmentAt!,
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

/** One call with its company (loaded, for its zone) and its agent, as the dashboard shows it. */
export const callDetailsRecord = (ids: IdCodec, call: Call): CallDetailsRecord => {
  const timeZone = call.company.timeZone;
  const appointmentAt = call.appointmentAt ?? null;
  return {
    id: call.id,
    encryptedId: ids.encrypt('call', call.id),
    callDatetime: formatWallClock(call.startedAt, timeZone),
    startedAt: call.startedAt,
    agentId: call.agent?.id ?? null,
    agentName: call.agent?.name ?? null,
    numbers: { from: call.fromNumber, to: call.toNumber },
    duration: call.durationSeconds,
    status: call.status,
    direction: call.direction,
    sentiment: call.sentiment ?? null,
    recordingUrl: call.recordingUrl ?? null,
    recordingAvailable: !!call.recordingUrl,
    transcript: call.transcript ?? null,
    disposition: call.disposition ?? null,
    tags: call.tags,
    customFields: call.customFields,
    decision: decisionOf(call),
    appointment: appointmentAt ? formatWallClock(appointmentAt, timeZone) : null,
    appointmentAt,
    contact: {
      name: call.contactName ?? null,
      email: call.contactEmail ?? null,
      phone: call.direction === 'inbound' ? call.fromNumber : call.toNumber,
    },
    summary: call.summary ?? null,
    successful: call.successful ?? null,
    customAnalysis: call.customAnalysis,
    analyzedAt: call.analyzedAt ?? null,
  };
};

/** A call's post-call analysis: what call.analyzed reports. */
export interface CallAnalysis {
  summary: string | null;
  sentiment: string | null;
  disposition: string | null;
  successful: boolean | null;
  customAnalysis: Record<string, unknown>;
  recordingUrl: string | null;
}

/** The analysis a call has now. */
export const analysisOf = (call: Call): CallAnalysis => ({
  summary: call.summary ?? null,
  sentiment: call.sentiment ?? null,
  disposition: call.disposition ?? null,
  successful: call.successful ?? null,
  customAnalysis: call.customAnalysis,
  recordingUrl: call.recordingUrl ?? null,
});

/** The decision a call keeps, or null when none was made for it. */
export const decisionOf = (call: Call): CallDecision | null => {
  const { decision } = call;
  if (!call.decidedBy || !decision.action) return null;
  return {
    decidedBy: call.decidedBy as CallDecision['decidedBy'],
    action: decision.action as CallDecision['action'],
    agentId: decision.action === 'answer' ? (call.agent?.id ?? null) : null,
    forwardTo: decision.action === 'forward' ? (decision.target ?? null) : null,
    fallbackReason: decision.fallbackReason ?? null,
    reason: decision.reason ?? null,
    variables: decision.variables ?? {},
    latencyMs: decision.latencyMs ?? null,
  };
};

/** Writes a decision onto its call (a call still `new` starts now: initiated). */
export const applyDecision = (call: Call, decision: CallDecision, agent: Call['agent']): void => {
  if (call.status === 'new') call.status = 'initiated';
  call.agent = agent;
  const { decidedBy, ...columns } = decidedColumns(decision);
  call.decidedBy = decidedBy;
  Object.assign(call.decision, columns);
};

/** A decision as the call's columns keep it. */
export const decidedColumns = (decision: CallDecision) => ({
  decidedBy: decision.decidedBy,
  action: decision.action,
  target:
    decision.action === 'forward' ? decision.forwardTo : decision.agentId === null ? null : String(decision.agentId),
  reason: decision.reason,
  variables: decision.variables,
  latencyMs: decision.latencyMs,
  fallbackReason: decision.fallbackReason,
});
