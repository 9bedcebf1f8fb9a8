import type { RequestContext } from '../context/request-context.js';
import { CALL_PROGRESS } from '../kernel/vocabulary.js';
import { callRepository } from '../repositories/call.repository.js';
import { dialerRepository } from '../repositories/dialer.repository.js';
import { phoneNumberRepository } from '../repositories/phone-number.repository.js';
import type { CallStatusChanged } from '../telco/callbacks.js';
import { evaluateAgent } from './agent-performance.js';
import { contactFields, type ContactService } from './contact.service.js';

// Calls as the provider reports them (docs/design.md §5, "Event sources"): the
// voice status callbacks create and advance the call record the AI dashboard
// reads, and record call.started, call.answered, call.transferred and
// call.ended. A call only moves forward: a repeated or late callback (a
// `ringing` after `completed`) changes nothing and records no event twice.

export class CallService {
  constructor(
    private readonly contacts: ContactService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Applies one voice status callback for the context's company (acting as the system). */
  async callStatusChanged(ctx: RequestContext, report: CallStatusChanged): Promise<void> {
    const now = this.clock();
    const { direction } = report;
    // The company's own number on the call, and the AI agent that answers on it.
    const answering = await phoneNumberRepository.answeringAgent(ctx, report.ourNumber);

    // The other party is a contact of the company (made on first contact).
    const person = await this.contacts.findOrCreate(ctx, report.otherNumber);
    const inserted = await callRepository.insertIfNew(ctx, {
      agentId: answering,
      contactId: person.id,
      providerCallId: report.callSid,
      fromNumber: report.from,
      toNumber: report.to,
      direction,
      contactName: [person.firstName, person.lastName].filter(Boolean).join(' ') || null,
      contactEmail: person.email,
      at: now,
    });
    // One callback at a time per call: the row lock orders concurrent ones.
    const call = await callRepository.lockedByProviderId(ctx, report.callSid);
    // A call id of another company's account: nothing to do here.
    if (!call) return;
    const was = { status: call.status, transferredTo: call.transferredTo, appointmentAt: call.appointmentAt ?? null };
    const before = inserted ? 0 : (CALL_PROGRESS[was.status] ?? 4);
    const after = CALL_PROGRESS[report.status];
    const moves = after > before;

    if (moves) call.status = report.status;
    if (moves && after === 4) {
      call.durationSeconds = report.durationSeconds ?? 0;
      call.endedAt = now;
    }
    const answeredNow =
      moves && before < 3 && (after === 3 || (report.status === 'completed' && call.durationSeconds > 0));
    if (answeredNow) call.answeredAt = now;
    // The AI agent's analysis arrives with the completed callback (or after it): it completes the record.
    if (report.recordingUrl) call.recordingUrl = report.recordingUrl;
    if (report.answeredBy) call.answeredBy = report.answeredBy;
    if (report.transcript !== undefined) call.transcript = report.transcript.slice(0, 100_000);
    if (report.sentiment) call.sentiment = report.sentiment;
    if (report.disposition !== undefined) call.disposition = report.disposition.slice(0, 64);
    if (report.tags !== undefined) call.tags = report.tags.slice(0, 50);
    const transferred =
      report.transferredTo && report.transferredTo !== was.transferredTo && (CALL_PROGRESS[call.status] ?? 4) < 4
        ? report.transferredTo
        : undefined;
    if (transferred) call.transferredTo = transferred;
    // A new appointment replaces the old one; a callback without one keeps it.
    if (report.appointmentAt) call.appointmentAt = report.appointmentAt;
    await callRepository.save(ctx);

    const base = {
      call_id: String(call.id),
      agent_id: call.agent ? String(call.agent.id) : null,
      caller_number: call.fromNumber,
      called_number: call.toNumber,
      call_direction: call.direction,
    };
    // The contact is the other party; the webhook's form data decides which fields it carries.
    const contact = contactFields(person);
    if (moves && before < 1)
      await ctx.events.record('call.started', { ...base, started_at: call.startedAt.toISOString() }, contact);
    if (answeredNow) await ctx.events.record('call.answered', { ...base, answered_at: now.toISOString() }, contact);
    if (transferred)
      await ctx.events.record(
        'call.transferred',
        { ...base, transferred_to: transferred, transferred_at: now.toISOString() },
        contact,
      );
    // A booking (or a new time for it) is an appointment.scheduled of its own.
    const booked = report.appointmentAt;
    const rebooked = booked && (!was.appointmentAt || was.appointmentAt.getTime() !== booked.getTime());
    if (moves && after === 4) {
      await ctx.events.record(
        'call.ended',
        {
          ...base,
          call_duration: call.durationSeconds,
          call_status: call.status,
          recording_url: call.recordingUrl,
          transcription: call.transcript,
          sentiment: call.sentiment,
          disposition: call.disposition,
          tags: call.tags,
          custom_fields: call.customFields,
        },
        contact,
      );
    }
    // A finished call of an AI agent may move its performance across a threshold.
    if (moves && after === 4 && call.agent) await evaluateAgent(ctx, call.agent.id);
    if (rebooked)
      await ctx.events.record(
        'appointment.scheduled',
        {
          call_id: String(call.id),
          appointment_at: booked!.toISOString(),
          agent_id: base.agent_id,
          ...(await campaignOf(ctx, report.callSid)),
        },
        contact,
      );
  }
}

/** The campaign whose call this is, as an event's data names it: `campaign_id`, only for a call a campaign placed. */
export async function campaignOf(
  ctx: RequestContext,
  callSid: string | null | undefined,
): Promise<{ campaign_id?: string }> {
  const campaign = callSid ? await dialerRepository.campaignOfCall(ctx, callSid) : null;
  return campaign === null ? {} : { campaign_id: String(campaign) };
}
