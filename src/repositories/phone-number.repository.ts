import type { RequestContext } from '../context/request-context.js';
import { type Page, type PageWindow, readNewestPage } from '../db/reads.js';
import { PhoneNumber } from '../entities/phone-number.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { type Listed, listed, ownedEntity } from './common.js';

/** What a number is listed with: every field the API serves. */
export type PhoneNumberListed =
  | 'id'
  | 'status'
  | 'useFor'
  | 'dialable'
  | 'phoneNo'
  | 'provider'
  | 'aiActive'
  | 'phoneType'
  | 'phoneTitle'
  | 'hasSpamProtection'
  | 'tendlc'
  | 'chatbotAgent';

// A company's phone numbers: the one module that knows their table. The list is one statement (a deep page through
// the index, with a cursor: db/reads.ts readNewestPage), its rows `Listed`.

const COLUMNS =
  'id, status, use_for, dialable, phone_no, provider, ai_active, phone_type, phone_title, has_spam_protection, ' +
  'tendlc, chatbot_agent_id';

export const phoneNumberRepository = {
  /** A page of the company's numbers, newest first; `pattern`: a LIKE pattern of the number or its title. */
  async page(
    ctx: RequestContext,
    filter: { useFor?: string; pattern?: string },
    window: PageWindow,
  ): Promise<Page<Listed<PhoneNumber, PhoneNumberListed>>> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (filter.useFor) where += ` AND use_for = $${params.push(filter.useFor)}`;
    if (filter.pattern) {
      const p = `$${params.push(filter.pattern)}`;
      where += ` AND (phone_no ILIKE ${p} OR phone_title ILIKE ${p})`;
    }
    const page = await readNewestPage<Record<string, unknown>>(
      ctx,
      { table: 'phone_numbers', columns: COLUMNS, where, params },
      window,
    );
    return { ...page, records: listed(ctx, PhoneNumber, page.records) };
  },

  find(ctx: RequestContext, ids: IdCodec, raw: string): Promise<PhoneNumber> {
    return ownedEntity(ctx, ids, PhoneNumber, { kind: 'phone_number', what: 'Phone number' }, raw);
  },

  /** The AI agent that answers on the company's number `phoneNo`; null when none does or it is not the company's. */
  async answeringAgent(ctx: RequestContext, phoneNo: string): Promise<number | null> {
    const number = await ctx.em.findOne(PhoneNumber, { company: await ctx.companyId(), phoneNo });
    return number?.chatbotAgent?.id ?? null;
  },

  /** The company's number to send from: `phoneNo` when it is one of them, else its first. */
  async sender(ctx: RequestContext, phoneNo?: string): Promise<PhoneNumber | null> {
    const company = await ctx.companyId();
    return ctx.em.findOne(PhoneNumber, phoneNo ? { company, phoneNo } : { company }, { orderBy: { id: 'asc' } });
  },

  /** Writes what was changed on the numbers this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
