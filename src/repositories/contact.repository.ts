import type { RequiredEntityData } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { Contact } from '../entities/contact.entity.js';
import { type Listed, listed } from './common.js';

/** What a contact is listed with: every field the API serves. */
export type ContactListed =
  | 'id'
  | 'phoneNumber'
  | 'email'
  | 'firstName'
  | 'lastName'
  | 'address'
  | 'city'
  | 'state'
  | 'zip'
  | 'country'
  | 'companyName'
  | 'tags'
  | 'customFields'
  | 'createdAt';

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
  async page(
    ctx: RequestContext,
    pattern: string | undefined,
    window: PageWindow,
  ): Promise<[Array<Listed<Contact, ContactListed>>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    if (pattern) params.push(pattern);
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      {
        select:
          'id, phone_number, email, first_name, last_name, address, city, state, zip, country, company_name, tags, ' +
          'custom_fields, created_at',
        from: 'contacts',
        where: pattern
          ? "company_id = $1 AND (phone_number ILIKE $2 OR coalesce(first_name, '') || ' ' || coalesce(last_name, '') " +
            'ILIKE $2 OR email ILIKE $2)'
          : 'company_id = $1',
        orderBy: 'created_at DESC, id DESC',
        params,
      },
      window,
    );
    return [listed(ctx, Contact, rows), total];
  },

  /** A contact of the caller's company by its id (a lead's, a call's). */
  async byId(ctx: RequestContext, id: number): Promise<Contact | null> {
    return ctx.em.findOne(Contact, { id, company: await ctx.companyId() });
  },
};
