import type { RequestContext } from '../context/request-context.js';
import { type Page, type PageWindow, readNewestPage } from '../db/reads.js';
import { DoNotCallEntry } from '../entities/do-not-call-entry.entity.js';
import type { DoNotCallSource } from '../kernel/vocabulary.js';
import { type Listed, listed } from './common.js';

// A company's do-not-call list: the one module that knows its table. The list is one statement (a deep page through
// the index, with a cursor: db/reads.ts readNewestPage), its rows `Listed`.

export type DoNotCallListed = 'phoneNumber' | 'source' | 'note' | 'createdAt';
const COLUMNS = 'id, phone_number, source, note, created_at';

export const doNotCallRepository = {
  /** A page of the list, newest first; `pattern`: a LIKE pattern of the number. */
  async page(
    ctx: RequestContext,
    pattern: string | undefined,
    window: PageWindow,
  ): Promise<Page<Listed<DoNotCallEntry, DoNotCallListed>>> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (pattern) where += ` AND phone_number LIKE $${params.push(pattern)}`;
    const page = await readNewestPage<Record<string, unknown>>(
      ctx,
      { table: 'do_not_call', columns: COLUMNS, where, params },
      window,
    );
    return { ...page, records: listed(ctx, DoNotCallEntry, page.records) };
  },

  /** The entry of one number, if it is on the list. */
  async entry(ctx: RequestContext, phoneNumber: string): Promise<DoNotCallEntry | null> {
    return ctx.em.findOne(DoNotCallEntry, { company: await ctx.companyId(), phoneNumber });
  },

  /** Of these numbers, the ones on the list. */
  async listedOf(ctx: RequestContext, phoneNumbers: string[]): Promise<Set<string>> {
    if (phoneNumbers.length === 0) return new Set();
    const entries = await ctx.em.find(
      DoNotCallEntry,
      { company: await ctx.companyId(), phoneNumber: { $in: phoneNumbers } },
      { fields: ['phoneNumber'] },
    );
    return new Set(entries.map((e) => e.phoneNumber));
  },

  /** Adds the numbers not on the list yet (one statement; a number already there keeps its entry); how many were new. */
  async add(ctx: RequestContext, phoneNumbers: string[], source: DoNotCallSource, note: string | null, now: Date) {
    const company = await ctx.companyId();
    const result = await ctx.em
      .createQueryBuilder(DoNotCallEntry)
      .insert(
        phoneNumbers.map((phoneNumber) => ({ company, phoneNumber, source, note, createdAt: now, updatedAt: now })),
      )
      .onConflict(['company', 'phoneNumber'])
      .ignore()
      .execute('run');
    return result.affectedRows;
  },

  /** Takes a number off the list (only an entry of `source`, when given); whether it was there. */
  async remove(ctx: RequestContext, phoneNumber: string, source?: DoNotCallSource): Promise<boolean> {
    const removed = await ctx.em.nativeDelete(DoNotCallEntry, {
      company: await ctx.companyId(),
      phoneNumber,
      ...(source ? { source } : {}),
    });
    return removed > 0;
  },
};
