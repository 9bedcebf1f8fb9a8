import type { RequiredEntityData } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { Contact } from '../entities/contact.entity.js';
import type { CallerContact } from '../db/contact-directory.js';
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

/** A contact as the call path's record reads it: every field an event carries of it. */
export type ContactRecordRow = Pick<Contact, ContactListed>;

const PERSON = `SELECT id, phone_number, email, first_name, last_name, address, city, state, zip, country, company_name,
  tags, custom_fields, created_at FROM contacts`;
// Many numbers at once (the call path's record of a batch of calls): each found, or made where there is none, in the
// numbers' order, so two records making the same new contacts at once never wait on each other in turn.
const PEOPLE_OF = `WITH wanted AS (SELECT DISTINCT unnest($2::text[]) AS phone_number),
found AS (${PERSON} WHERE company_id = $1 AND phone_number = ANY($2::text[])), made AS (
  INSERT INTO contacts (company_id, phone_number, tags, custom_fields, created_at, updated_at)
  SELECT $1, w.phone_number, '[]', '{}', $3, $3 FROM wanted w
  WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.phone_number = w.phone_number) ORDER BY w.phone_number
  ON CONFLICT (company_id, phone_number) DO NOTHING
  RETURNING id, phone_number, email, first_name, last_name, address, city, state, zip, country, company_name, tags,
    custom_fields, created_at
) SELECT * FROM found UNION ALL SELECT * FROM made`;

const CALLER = 'id, first_name AS "firstName", last_name AS "lastName", email';

const personRecord = (row: Record<string, unknown>): ContactRecordRow => ({
  id: row.id as number,
  phoneNumber: row.phone_number as string,
  email: row.email as string | null,
  firstName: row.first_name as string | null,
  lastName: row.last_name as string | null,
  address: row.address as string | null,
  city: row.city as string | null,
  state: row.state as string | null,
  zip: row.zip as string | null,
  country: row.country as string | null,
  companyName: row.company_name as string | null,
  tags: row.tags as string[],
  customFields: row.custom_fields as Record<string, unknown>,
  createdAt: row.created_at as Date,
});

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

  /**
   * The contacts of these numbers by number, made where there are none, in one statement and as plain records (no
   * entity): for the call path's record, where the entities' work competes with the next calls' answers (ADR 0088).
   * Two callers at once get the same one.
   */
  async peopleOf(ctx: RequestContext, phoneNumbers: string[], now: Date): Promise<Map<string, ContactRecordRow>> {
    const company = await ctx.companyId();
    const people = new Map(
      (await ctx.sql<Record<string, unknown>>(PEOPLE_OF, [company, phoneNumbers, now])).map((row) => [
        row.phone_number as string,
        personRecord(row),
      ]),
    );
    // Made meanwhile by another caller (its insert committed after this statement's snapshot): read as committed.
    const missing = [...new Set(phoneNumbers)].filter((number) => !people.has(number));
    if (missing.length > 0)
      for (const row of await ctx.sql<Record<string, unknown>>(
        `${PERSON} WHERE company_id = $1 AND phone_number = ANY($2::text[])`,
        [company, missing],
      ))
        people.set(row.phone_number as string, personRecord(row));
    return people;
  },

  /** The company's contact with this number as a decision request names it; null without one. */
  async caller(ctx: RequestContext, phoneNumber: string): Promise<CallerContact | null> {
    const [row] = await ctx.sql<CallerContact>(
      `SELECT ${CALLER} FROM contacts WHERE company_id = $1 AND phone_number = $2`,
      [await ctx.companyId(), phoneNumber],
    );
    return row ?? null;
  },

  /** The company's contacts as a decision request names them, after `afterId` in id order, at most `limit`. */
  async callers(
    ctx: RequestContext,
    afterId: number,
    limit: number,
  ): Promise<Array<CallerContact & { phoneNumber: string }>> {
    return ctx.sql<CallerContact & { phoneNumber: string }>(
      `SELECT ${CALLER}, phone_number AS "phoneNumber" FROM contacts WHERE company_id = $1 AND id > $2 ORDER BY id
       LIMIT $3`,
      [await ctx.companyId(), afterId, limit],
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
