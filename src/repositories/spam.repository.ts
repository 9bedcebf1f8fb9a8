import { LockMode, QueryOrder } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type Page, type PageWindow, readNewestPage } from '../db/reads.js';
import { SpamProtectedNumber } from '../entities/spam-protected-number.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import type { SpamNumberType, SpamStatus } from '../kernel/vocabulary.js';
import { type Listed, listed, ownedEntity } from './common.js';

// A company's spam-protected numbers: the one module that knows their table. The list is one statement (a deep
// page through the index, with a cursor: db/reads.ts readNewestPage), its rows `Listed`.

/** What a protected number is listed with. */
export type SpamListed =
  | 'id'
  | 'type'
  | 'status'
  | 'pnumber'
  | 'flaggedCarriers'
  | 'carriersChecked'
  | 'latestCheckAt'
  | 'renewsAt'
  | 'autoRenew';

const COLUMNS = 'id, type, status, pnumber, flagged_carriers, carriers_checked, latest_check_at, renews_at, auto_renew';

export const spamRepository = {
  /** A page of the company's numbers, newest first, by status, type and a LIKE pattern of number, type or status. */
  async page(
    ctx: RequestContext,
    filter: { status?: SpamStatus; type?: SpamNumberType; pattern?: string },
    window: PageWindow,
  ): Promise<Page<Listed<SpamProtectedNumber, SpamListed>>> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (filter.status) where += ` AND status = $${params.push(filter.status)}`;
    if (filter.type) where += ` AND type = $${params.push(filter.type)}`;
    if (filter.pattern) {
      const p = `$${params.push(filter.pattern)}`;
      where += ` AND (pnumber ILIKE ${p} OR type ILIKE ${p} OR status ILIKE ${p})`;
    }
    const page = await readNewestPage<Record<string, unknown>>(
      ctx,
      { table: 'spam_protected_numbers', columns: COLUMNS, where, params },
      window,
    );
    return { ...page, records: listed(ctx, SpamProtectedNumber, page.records) };
  },

  find(ctx: RequestContext, ids: IdCodec, raw: string): Promise<SpamProtectedNumber> {
    return ownedEntity(ctx, ids, SpamProtectedNumber, { kind: 'spam_protected_number', what: 'Number' }, raw);
  },

  async create(
    ctx: RequestContext,
    fields: Pick<SpamProtectedNumber, 'type' | 'status' | 'pnumber' | 'renewsAt'>,
  ): Promise<SpamProtectedNumber> {
    const number = ctx.em.create(SpamProtectedNumber, { ...fields, company: await ctx.companyId() });
    await ctx.em.flush();
    return number;
  },

  /** The company's numbers (`checkedOnly`: those checked at least once), by id, locked until the unit of work ends. */
  async ofCompany(ctx: RequestContext, checkedOnly = false): Promise<SpamProtectedNumber[]> {
    return ctx.em.find(
      SpamProtectedNumber,
      { company: await ctx.companyId(), ...(checkedOnly ? { latestCheckAt: { $ne: null } } : {}) },
      { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
    );
  },

  /** Every company's numbers never checked or last checked before `before`, those waiting longest first. */
  due(ctx: RequestContext, before: Date, limit: number): Promise<SpamProtectedNumber[]> {
    return ctx.em.find(
      SpamProtectedNumber,
      { $or: [{ latestCheckAt: null }, { latestCheckAt: { $lt: before } }] },
      { orderBy: { latestCheckAt: QueryOrder.ASC_NULLS_FIRST }, limit },
    );
  },

  /** Writes what was changed on the numbers this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
