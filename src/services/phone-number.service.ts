import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { NotFoundError, UnprocessableError } from '../kernel/errors.js';
import { Rules } from '../kernel/validation.js';
import { idOf } from '../db/lookup.js';
import { likePattern, pageOf, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { PhoneNumber } from '../entities/phone-number.entity.js';
import { agentRepository } from '../repositories/agent.repository.js';
import { phoneNumberRepository, type PhoneNumberListed } from '../repositories/phone-number.repository.js';
import type { Listed } from '../repositories/common.js';
import { PHONE_TYPES, PhoneStatus, TENDLC_ANSWERS, UseFor } from '../kernel/vocabulary.js';
import { BOUNDS } from '../kernel/bounds.js';

export const CHATBOT_PAGE = 15;

export interface PhoneNumberChange {
  phoneTitle?: string | null;
  status?: string | null;
  useFor?: string | null;
  phoneType?: string | null;
  tendlc?: string | null;
}

export interface ChatbotOptions {
  results: Array<{ id: string; text: string }>;
  more: boolean;
}

/** A number as the GraphQL PhoneNumber type serves it. */
export interface PhoneNumberRecord {
  id: number;
  base64Id: string;
  encryptedId: string;
  status: string;
  useFor: string;
  dialable: boolean;
  phoneNo: string;
  provider: string;
  aiActive: boolean;
  phoneType: string;
  phoneTitle: string | null;
  hasSpamProtection: boolean;
  tendlcs: string | null;
  chatbotAgentId: string | null;
}

export class PhoneNumberService {
  constructor(private readonly ids: IdCodec) {}

  private record(n: Listed<PhoneNumber, PhoneNumberListed>): PhoneNumberRecord {
    return {
      id: n.id,
      base64Id: toBase64Id(n.id),
      encryptedId: this.ids.encrypt('phone_number', n.id),
      status: n.status,
      useFor: n.useFor,
      dialable: n.dialable,
      phoneNo: n.phoneNo,
      provider: n.provider,
      aiActive: n.aiActive,
      phoneType: n.phoneType,
      phoneTitle: n.phoneTitle,
      hasSpamProtection: n.hasSpamProtection,
      tendlcs: n.tendlc,
      chatbotAgentId: n.chatbotAgent === null ? null : String(n.chatbotAgent.id),
    };
  }

  async list(
    ctx: RequestContext,
    args: PageArgs & { search?: string | null; useFor?: string | null },
  ): Promise<Page<PhoneNumberRecord>> {
    new Rules().oneOf('useFor', args.useFor, Object.values(UseFor)).check();
    const window = pageWindow(args);
    const page = await phoneNumberRepository.page(
      ctx,
      { useFor: args.useFor ?? undefined, pattern: args.search ? likePattern(args.search) : undefined },
      window,
    );
    return { ...page, records: page.records.map((n) => this.record(n)) };
  }

  /** Writes the number's changed fields and gives it as it is now. */
  private async change(ctx: RequestContext, number: PhoneNumber, fields: Partial<PhoneNumber>) {
    Object.assign(number, fields);
    await phoneNumberRepository.save(ctx);
    return this.record(number);
  }

  /** Only the listed fields change; each is checked against its values. */
  async update(ctx: RequestContext, rawId: string, change: PhoneNumberChange): Promise<PhoneNumberRecord> {
    const number = await phoneNumberRepository.find(ctx, this.ids, rawId);
    new Rules()
      .maxChars('phone_title', change.phoneTitle, BOUNDS.phoneNumber.title.maxLength)
      .oneOf('status', change.status, Object.values(PhoneStatus))
      .oneOf('useFor', change.useFor, Object.values(UseFor))
      .oneOf('phoneType', change.phoneType, PHONE_TYPES)
      .oneOf('tendlc', change.tendlc, TENDLC_ANSWERS)
      .check();
    const fields: Partial<PhoneNumber> = {};
    if (change.phoneTitle !== undefined && change.phoneTitle !== null) fields.phoneTitle = change.phoneTitle;
    if (change.status) fields.status = change.status as PhoneStatus;
    if (change.useFor) fields.useFor = change.useFor as UseFor;
    if (change.phoneType) fields.phoneType = change.phoneType;
    if (change.tendlc) fields.tendlc = change.tendlc;
    return this.change(ctx, number, fields);
  }

  /** Puts an active agent of the company on the number's inbound chatbot, or clears it (null). */
  async assignChatbot(ctx: RequestContext, rawId: string, rawAgentId: string | null): Promise<PhoneNumberRecord> {
    const number = await phoneNumberRepository.find(ctx, this.ids, rawId);
    if (rawAgentId === null || rawAgentId === '') return this.change(ctx, number, { chatbotAgent: null });
    const agent = await agentRepository.byId(ctx, idOf(this.ids, rawAgentId, 'agent', 'Agent'));
    if (!agent) throw new NotFoundError('Agent');
    if (!agent.active) throw new UnprocessableError('The agent is inactive and cannot answer a number.');
    return this.change(ctx, number, { chatbotAgent: agent });
  }

  /** Active agents for the chatbot picker: 15 a page, by name, optional name match or one id. */
  async chatbotOptions(
    ctx: RequestContext,
    args: { q?: string | null; id?: string | null; page?: number | null },
  ): Promise<ChatbotOptions> {
    const window = pageWindow(
      { page: args.page, perPage: CHATBOT_PAGE },
      { defaultPerPage: CHATBOT_PAGE, maxPerPage: CHATBOT_PAGE },
    );
    const id = args.id ? this.ids.decode(args.id, 'agent') : undefined;
    if (args.id && id === undefined) return { results: [], more: false };
    const [agents, total] = await agentRepository.page(
      ctx,
      { active: true, id, namePattern: args.q ? likePattern(args.q, 'q') : undefined },
      window,
    );
    const { pagination } = pageOf(agents, total, window);
    return {
      results: agents.map((a) => ({ id: String(a.id), text: a.name })),
      more: pagination.currentPage < pagination.lastPage,
    };
  }
}
