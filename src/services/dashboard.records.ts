import type { Call } from '../entities/index.js';
import type { IdCodec } from '../ids.js';
import { dbDate } from '../db/dates.js';
import { formatWallClock } from '../time/zoned.js';

// The AI dashboard's records, in the shapes its GraphQL types serve: a row of
// the appointment list (read as plain rows) and one call's details (read as
// an entity). Wall-clock times are "YYYY-MM-DD HH:mm:ss" in the company's
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
  transcript: string | null;
  disposition: string | null;
  tags: string[];
  customFields: Record<string, unknown>;
  appointment: string | null;
  appointmentAt: Date | null;
  contact: { name: string | null; email: string | null; phone: string };
}

export const callDetailsRecord = (ids: IdCodec, call: Call, timeZone: string): CallDetailsRecord => ({
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
  transcript: call.transcript ?? null,
  disposition: call.disposition ?? null,
  tags: call.tags,
  customFields: call.customFields,
  appointment: call.appointmentAt ? formatWallClock(call.appointmentAt, timeZone) : null,
  appointmentAt: call.appointmentAt ?? null,
  contact: { name: call.contactName ?? null, email: call.contactEmail ?? null, phone: call.direction === 'inbound' ? call.fromNumber : call.toNumber },
});
