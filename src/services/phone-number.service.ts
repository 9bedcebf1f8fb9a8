import type { RequestContext } from '../context/request-context.js';
import { toBase64Id, type IdCodec } from '../kernel/ids.js';
import { NotFoundError, UnprocessableError } from '../kernel/errors.js';
import { Rules } from '../kernel/validation.js';
import { idOf, ownedRow } from '../db/lookup.js';
import { likePattern, pageOf, pageWindow, readNewestPage, readPage, type Page, type PageArgs } from '../db/reads.js';
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

/** A number's row. */
interface NumberRow {
  id: number;
  status: string;
  use_for: string;
  dialable: boolean;
  phone_no: string;
  provider: string;
  ai_active: boolean;
  phone_type: string;
  phone_title: string | null;
  has_spam_protection: boolean;
  tendlc: string | null;
  chatbot_agent_id: number | null;
}

const NUMBER_COLUMNS =
  'id, status, use_for, dialable, phone_no, provider, ai_active, phone_type, phone_title, has_spam_protection, ' +
  'tendlc, chatbot_agent_id';

export class PhoneNumberService {
  constructor(private readonly ids: IdCodec) {}

  private record(n: NumberRow): PhoneNumberRecord {
    return {
      id: n.id,
      base64Id: toBase64Id(n.id),
      encryptedId: this.ids.encrypt('phone_number', n.id),
      status: n.status,
      useFor: n.use_for,
      dialable: n.dialable,
      phoneNo: n.phone_no,
      provider: n.provider,
      aiActive: n.ai_active,
      phoneType: n.phone_type,
      phoneTitle: n.phone_title ?? null,
      hasSpamProtection: n.has_spam_protection,
      tendlcs: n.tendlc ?? null,
      chatbotAgentId: n.chatbot_agent_id === null ? null : String(n.chatbot_agent_id),
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
    const page = await readNewestPage<NumberRow>(
      ctx,
      { table: 'phone_numbers', columns: NUMBER_COLUMNS, where, params },
      window,
    );
    return { ...page, records: page.records.map((n) => this.record(n)) };
  }

  private async find(ctx: RequestContext, rawId: string): Promise<NumberRow> {
    return ownedRow<NumberRow>(
      ctx,
      this.ids,
      { table: 'phone_numbers', columns: NUMBER_COLUMNS, kind: 'phone_number', what: 'Phone number' },
      rawId,
    );
  }

  /** Sets columns of a number (values from $2 on; $1 is its id), and gives it as it is now. */
  private async change(ctx: RequestContext, number: NumberRow, set: string[], values: unknown[]) {
    if (set.length === 0) return this.record(number);
    const [row] = await ctx.sql<NumberRow>(
      `UPDATE phone_numbers SET ${set.join(', ')}, updated_at = now() WHERE id = $1 RETURNING ${NUMBER_COLUMNS}`,
      [number.id, ...values],
    );
    return this.record(row);
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
    const set: string[] = [];
    const values: unknown[] = [];
    const put = (column: string, value: unknown) => set.push(`${column} = $${values.push(value) + 1}`);
    if (change.phoneTitle !== undefined && change.phoneTitle !== null) put('phone_title', change.phoneTitle);
    if (change.status) put('status', change.status);
    if (change.useFor) put('use_for', change.useFor);
    if (change.phoneType) put('phone_type', change.phoneType);
    if (change.tendlc) put('tendlc', change.tendlc);
    return this.change(ctx, number, set, values);
  }

  /** Puts an active agent of the company on the number's inbound chatbot, or clears it (null). */
  async assignChatbot(ctx: RequestContext, rawId: string, rawAgentId: string | null): Promise<PhoneNumberRecord> {
    const number = await this.find(ctx, rawId);
    if (rawAgentId === null || rawAgentId === '') return this.change(ctx, number, ['chatbot_agent_id = NULL'], []);
    const [agent] = await ctx.sql<{ id: number; active: boolean }>(
      'SELECT id, active FROM agents WHERE id = $1 AND company_id = $2',
      [idOf(this.ids, rawAgentId, 'agent', 'Agent'), await ctx.companyId()],
    );
    if (!agent) throw new NotFoundError('Agent');
    if (!agent.active) throw new UnprocessableError('The agent is inactive and cannot answer a number.');
    return this.change(ctx, number, ['chatbot_agent_id = $2'], [agent.id]);
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
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1 AND active';
    if (args.id) {
      const id = this.ids.decode(args.id, 'agent');
      if (id === undefined) return { results: [], more: false };
      where += ` AND id = $${params.push(id)}`;
    }
    if (args.q) where += ` AND name ILIKE $${params.push(likePattern(args.q, 'q'))}`;
    const { rows, total } = await readPage<{ id: number; name: string }>(
      ctx,
      { select: 'id, name', from: 'agents', where, orderBy: 'name, id', params },
      window,
    );
    const { pagination } = pageOf(rows, total, window);
    return {
      results: rows.map((a) => ({ id: String(a.id), text: a.name })),
      more: pagination.currentPage < pagination.lastPage,
    };
  }
}
