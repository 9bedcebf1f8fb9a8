import { type FilterQuery, raw, type RequiredEntityData } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import type { PageWindow } from '../db/reads.js';
import { Contact } from '../entities/contact.entity.js';
import { pageOptions } from './common.js';

// A company's contacts, one per phone number: the one module that knows their table.

export const contactRepository = {
  /** The contact with this number, made when there is none; two callers at once get the same one. */
  async findOrCreate(ctx: RequestContext, phoneNumber: string, now: Date): Promise<Contact> {
    const company = await ctx.companyId();
    return (
      (await ctx.em.findOne(Contact, { company, phoneNumber })) ??
      ctx.em.upsert(
        Contact,
        { company, phoneNumber, createdAt: now, updatedAt: now },
        { onConflictFields: ['company', 'phoneNumber'], onConflictAction: 'ignore' },
      )
    );
  },

  async exists(ctx: RequestContext, phoneNumber: string): Promise<boolean> {
    return (await ctx.em.count(Contact, { company: await ctx.companyId(), phoneNumber })) > 0;
  },

  async create(ctx: RequestContext, fields: Omit<RequiredEntityData<Contact>, 'company'>): Promise<Contact> {
    const contact = ctx.em.create(Contact, { ...fields, company: await ctx.companyId() });
    await ctx.em.flush();
    return contact;
  },

  /** One page of the company's contacts, newest first; `pattern` (a LIKE pattern) matches number, name or email. */
  async page(ctx: RequestContext, pattern: string | undefined, window: PageWindow): Promise<[Contact[], number]> {
    const where: FilterQuery<Contact> = { company: await ctx.companyId() };
    if (pattern)
      where.$or = [
        { phoneNumber: { $ilike: pattern } },
        { [raw("coalesce(first_name, '') || ' ' || coalesce(last_name, '')")]: { $ilike: pattern } },
        { email: { $ilike: pattern } },
      ];
    return ctx.em.findAndCount(Contact, where, {
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      ...pageOptions(window),
    });
  },

  /** A contact of the caller's company by its id (a lead's, a call's). */
  async byId(ctx: RequestContext, id: number): Promise<Contact | null> {
    return ctx.em.findOne(Contact, { id, company: await ctx.companyId() });
  },
};
