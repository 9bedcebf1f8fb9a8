import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { Agent, PHONE_TYPES, PhoneNumber, PhoneStatus, UseFor } from '../entities/index.js';
import { UnprocessableError } from '../kernel/errors.js';
import { Rules } from '../kernel/validation.js';
import { findOwned, findPage, findPageByKeys } from '../db/lookup.js';
import { likePattern, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import { TENDLC_ANSWERS } from '../kernel/vocabulary.js';
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

  private record(n: PhoneNumber): PhoneNumberRecord {
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
      phoneTitle: n.phoneTitle ?? null,
      hasSpamProtection: n.hasSpamProtection,
      tendlcs: n.tendlc ?? null,
      chatbotAgentId: n.chatbotAgent ? String(n.chatbotAgent.id) : null,
    };
  }

  async list(
    ctx: RequestContext,
    args: PageArgs & { search?: string | null; useFor?: string | null },
  ): Promise<Page<PhoneNumberRecord>> {
    new Rules().oneOf('useFor', args.useFor, Object.values(UseFor)).check();
    const window = pageWindow(args);
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (args.useFor) where += ` AND use_for = $${params.push(args.useFor)}`;
    if (args.search) {
      const p = `$${params.push(likePattern(args.search))}`;
      where += ` AND (phone_no ILIKE ${p} OR phone_title ILIKE ${p})`;
    }
    const page = await findPageByKeys(ctx, PhoneNumber, { from: 'phone_numbers', where, params }, window);
    return { ...page, records: page.records.map((n) => this.record(n)) };
  }

  find(ctx: RequestContext, rawId: string): Promise<PhoneNumber> {
    return findOwned(ctx, this.ids, PhoneNumber, rawId, 'phone_number', 'Phone number');
  }

  /** Only the listed fields change; each is checked against its values. */
  async update(ctx: RequestContext, rawId: string, change: PhoneNumberChange): Promise<PhoneNumberRecord> {
    const number = await this.find(ctx, rawId);
    new Rules()
      .maxChars('phone_title', change.phoneTitle, BOUNDS.phoneNumber.title.maxLength)
      .oneOf('status', change.status, Object.values(PhoneStatus))
      .oneOf('useFor', change.useFor, Object.values(UseFor))
      .oneOf('phoneType', change.phoneType, PHONE_TYPES)
      .oneOf('tendlc', change.tendlc, TENDLC_ANSWERS)
      .check();
    if (change.phoneTitle !== undefined && change.phoneTitle !== null) number.phoneTitle = change.phoneTitle;
    if (change.status) number.status = change.status as PhoneStatus;
    if (change.useFor) number.useFor = change.useFor as UseFor;
    if (change.phoneType) number.phoneType = change.phoneType;
    if (change.tendlc) number.tendlc = change.tendlc;
    await ctx.em.flush();
    return this.record(number);
  }

  /** Puts an active agent of the company on the number's inbound chatbot, or clears it (null). */
  async assignChatbot(ctx: RequestContext, rawId: string, rawAgentId: string | null): Promise<PhoneNumberRecord> {
    const number = await this.find(ctx, rawId);
    if (rawAgentId === null || rawAgentId === '') {
      number.chatbotAgent = null;
    } else {
      const agent = await findOwned(ctx, this.ids, Agent, rawAgentId, 'agent', 'Agent');
      if (!agent.active) throw new UnprocessableError('The agent is inactive and cannot answer a number.');
      number.chatbotAgent = agent;
    }
    await ctx.em.flush();
    return this.record(number);
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
    const where: Record<string, unknown> = { company: await ctx.companyId(), active: true };
    if (args.id) {
      const id = this.ids.decode(args.id, 'agent');
      if (id === undefined) return { results: [], more: false };
      where.id = id;
    }
    if (args.q) where.name = { $ilike: likePattern(args.q, 'q') };
    const { records, pagination } = await findPage(ctx.em, Agent, where, window, {
      orderBy: { name: 'asc', id: 'asc' },
    });
    return {
      results: records.map((a) => ({ id: String(a.id), text: a.name })),
      more: pagination.currentPage < pagination.lastPage,
    };
  }
}
