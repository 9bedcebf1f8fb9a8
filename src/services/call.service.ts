import type { RequestContext } from '../context.js';
import { CALL_PROGRESS } from '../vocabulary.js';
import { dbDate } from '../db/dates.js';
import type { CallStatusChanged } from '../telco/callbacks.js';
import { evaluateAgent } from './agent-performance.js';
import { contactFields, type ContactService } from './contact.service.js';

// Calls as the provider reports them (DESIGN section 5, "Event sources"): the
// voice status callbacks create and advance the call record the AI dashboard
// reads, and record call.started, call.answered, call.transferred and
// call.ended. A call only moves forward: a repeated or late callback (a
// `ringing` after `completed`) changes nothing and records no event twice.

interface CallRow {
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

export class CallService {
  constructor(
    private readonly contacts: ContactService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Applies one voice status callback for the context's company (acting as the system). */
  async callStatusChanged(ctx: RequestContext, report: CallStatusChanged): Promise<void> {
    const companyId = await ctx.companyId();
    const now = this.clock();
    const { direction } = report;
    // The company's own number on the call, and the AI agent that answers on it.
    const [number] = await ctx.sql<{ agent: number | null }>('SELECT chatbot_agent_id AS agent FROM phone_numbers WHERE company_id = ? AND phone_no = ? LIMIT 1', [companyId, report.ourNumber]);

    // The other party is a contact of the company (made on first contact).
    const person = await this.contacts.findOrCreate(ctx, report.otherNumber);
    const inserted = await ctx.sql<{ id: number }>(
      `INSERT INTO calls (company_id, agent_id, contact_id, provider_call_id, from_number, to_number, started_at, duration_seconds, status, direction, tags, custom_fields, contact_name, contact_email, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 0, 'new', ?, '[]', '{}', ?, ?, ?, ?) ON CONFLICT (provider_call_id) DO NOTHING RETURNING id`,
      [companyId, number?.agent ?? null, person.id, report.callSid, report.from, report.to, now, direction,
        [person.firstName, person.lastName].filter(Boolean).join(' ') || null, person.email, now, now],
    );
    // One callback at a time per call: the row lock orders concurrent ones.
    const [row] = await ctx.sql<CallRow>(
      `SELECT id, status, agent_id, from_number, to_number, direction, duration_seconds, started_at, answered_at, transferred_to, recording_url, transcript, sentiment, disposition, tags, custom_fields, appointment_at
       FROM calls WHERE provider_call_id = ? AND company_id = ? FOR UPDATE`,
      [report.callSid, companyId],
    );
    // A call id of another company's account: nothing to do here.
    if (!row) return;
    const before = inserted.length > 0 ? 0 : (CALL_PROGRESS[row.status] ?? 4);
    const after = CALL_PROGRESS[report.status];
    const moves = after > before;

    const call = { ...row };
    if (moves) call.status = report.status;
    if (moves && after === 4) call.duration_seconds = report.durationSeconds ?? 0;
    const answeredNow = moves && before < 3 && (after === 3 || (report.status === 'completed' && call.duration_seconds > 0));
    if (answeredNow) call.answered_at = now;
    // The AI agent's analysis arrives with the completed callback (or after it): it completes the record.
    if (report.recordingUrl) call.recording_url = report.recordingUrl;
    if (report.transcript !== undefined) call.transcript = report.transcript.slice(0, 100_000);
    if (report.sentiment) call.sentiment = report.sentiment;
    if (report.disposition !== undefined) call.disposition = report.disposition.slice(0, 64);
    if (report.tags !== undefined) call.tags = report.tags.slice(0, 50);
    const transferred = report.transferredTo && report.transferredTo !== row.transferred_to && (CALL_PROGRESS[call.status] ?? 4) < 4 ? report.transferredTo : undefined;
    if (transferred) call.transferred_to = transferred;

    await ctx.sql(
      `UPDATE calls SET status = ?, duration_seconds = ?, answered_at = ?, ended_at = CASE WHEN ? THEN ? ELSE ended_at END, transferred_to = ?,
         recording_url = ?, transcript = ?, sentiment = ?, disposition = ?, tags = ?, appointment_at = COALESCE(?, appointment_at), updated_at = ?
       WHERE id = ?`,
      [call.status, call.duration_seconds, call.answered_at ?? null, moves && after === 4, now, call.transferred_to, call.recording_url, call.transcript, call.sentiment, call.disposition,
        JSON.stringify(call.tags), report.appointmentAt ?? null, now, row.id],
    );

    const base = {
      call_id: String(row.id),
      agent_id: row.agent_id === null ? null : String(row.agent_id),
      caller_number: row.from_number,
      called_number: row.to_number,
      call_direction: row.direction,
    };
    // The contact is the other party; the webhook's form data decides which fields it carries.
    const contact = contactFields(person);
    if (moves && before < 1) await ctx.events.record('call.started', { ...base, started_at: dbDate(row.started_at).toISOString() }, contact);
    if (answeredNow) await ctx.events.record('call.answered', { ...base, answered_at: now.toISOString() }, contact);
    if (transferred) await ctx.events.record('call.transferred', { ...base, transferred_to: transferred, transferred_at: now.toISOString() }, contact);
    // A booking (or a new time for it) is an appointment.scheduled of its own.
    const booked = report.appointmentAt;
    const rebooked = booked && (!row.appointment_at || dbDate(row.appointment_at).getTime() !== booked.getTime());
    if (moves && after === 4) {
      await ctx.events.record('call.ended', {
        ...base,
        call_duration: call.duration_seconds,
        call_status: call.status,
        recording_url: call.recording_url,
        transcription: call.transcript,
        sentiment: call.sentiment,
        disposition: call.disposition,
        tags: call.tags,
        custom_fields: call.custom_fields ?? {},
      }, contact);
    }
    // A finished call of an AI agent may move its performance across a threshold.
    if (moves && after === 4 && row.agent_id !== null) await evaluateAgent(ctx, row.agent_id);
    if (rebooked) await ctx.events.record('appointment.scheduled', { call_id: String(row.id), appointment_at: booked!.toISOString(), agent_id: base.agent_id }, contact);
  }
}
