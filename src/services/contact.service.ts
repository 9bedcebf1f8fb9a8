import type { RequestContext } from '../context/request-context.js';
import { dbDate, likePattern, pageOf, pageWindow, readPage, type Page } from '../db/reads.js';
import { ValidationError } from '../kernel/errors.js';
import { E164, EMAIL, Rules, message } from '../kernel/validation.js';
import { BOUNDS } from '../kernel/bounds.js';

// Contacts (docs/design.md §4): the people calls, SMS and leads concern, one
// per phone number in a company. Created by users, or found or created by
// phone number when the provider reports a call or a message. Their fields
// are the webhook form data fields: an event's data.contact is this record,
// cut down to what each webhook selected.

const TEXT_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'address',
  'city',
  'state',
  'zip',
  'country',
  'companyName',
] as const;
const COLUMNS: Record<(typeof TEXT_FIELDS)[number], string> = {
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  address: 'address',
  city: 'city',
  state: 'state',
  zip: 'zip',
  country: 'country',
  companyName: 'company_name',
};
const CUSTOM_KEY = /^[A-Za-z0-9_-]{1,64}$/;

interface ContactRow {
  id: number;
  phone_number: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  address: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  company_name: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  created_at: Date | string;
}

/** A contact as the GraphQL Contact type serves it. */
export interface ContactRecord {
  id: number;
  phoneNumber: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  address: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  companyName: string | null;
  tags: string[];
  customFields: Record<string, unknown>;
  createdAt: Date;
}

const READ_COLUMNS =
  'id, phone_number, email, first_name, last_name, address, city, state, zip, country, company_name, tags, custom_fields, created_at';
const SELECT = `SELECT ${READ_COLUMNS} FROM contacts`;

const contactRecord = (row: ContactRow): ContactRecord => ({
  id: row.id,
  phoneNumber: row.phone_number,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  address: row.address,
  city: row.city,
  state: row.state,
  zip: row.zip,
  country: row.country,
  companyName: row.company_name,
  tags: row.tags,
  customFields: row.custom_fields,
  createdAt: dbDate(row.created_at),
});

export type ContactInput = {
  phoneNumber?: string | null;
  tags?: string[] | null;
  customFields?: Record<string, unknown> | null;
} & Partial<Record<(typeof TEXT_FIELDS)[number], string | null>>;

/** What an event says of a contact: every form data field, by its form data name (the webhook picks its own). */
export function contactFields(c: ContactRecord): Record<string, unknown> {
  return {
    // Not a form data field (no payload carries it): it says which contact the event concerns.
    contact_id: String(c.id),
    phone_number: c.phoneNumber,
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    address: c.address,
    city: c.city,
    state: c.state,
    zip: c.zip,
    country: c.country,
    company_name: c.companyName,
    tags: c.tags,
    custom_fields: c.customFields,
  };
}

export class ContactService {
  constructor(private readonly clock: () => Date = () => new Date()) {}

  /** The contact with this number, made when there is none (a provider callback's other party). */
  async findOrCreate(ctx: RequestContext, phoneNumber: string): Promise<ContactRecord> {
    const companyId = await ctx.companyId();
    const now = this.clock();
    await ctx.sql(
      'INSERT INTO contacts (company_id, phone_number, created_at, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (company_id, phone_number) DO NOTHING',
      [companyId, phoneNumber, now, now],
    );
    const [row] = await ctx.sql<ContactRow>(`${SELECT} WHERE company_id = $1 AND phone_number = $2`, [
      companyId,
      phoneNumber,
    ]);
    return contactRecord(row);
  }

  async create(ctx: RequestContext, input: ContactInput): Promise<ContactRecord> {
    const rules = new Rules().required('phoneNumber', input.phoneNumber);
    if (!rules.has('phoneNumber') && !E164.test(input.phoneNumber!))
      rules.add('phoneNumber', message.e164('phoneNumber'));
    for (const field of TEXT_FIELDS) rules.maxChars(field, input[field], BOUNDS.contact[field].maxLength);
    if (input.email && !rules.has('email') && !EMAIL.test(input.email)) rules.add('email', message.email('email'));
    const { tags, customFields, customValue } = BOUNDS.contact;
    if (input.tags && input.tags.length > tags.maxItems) rules.add('tags', message.maxItems('tags', tags.maxItems));
    input.tags?.forEach((tag, i) => rules.maxChars(`tags.${i}`, tag, tags.items.maxLength));
    const custom = input.customFields ?? {};
    const keys = Object.keys(custom);
    if (keys.length > customFields.maxItems)
      rules.add('customFields', `The custom fields field must not have more than ${customFields.maxItems} keys.`);
    for (const key of keys) {
      const value = custom[key];
      if (!CUSTOM_KEY.test(key))
        rules.add(`customFields.${key}`, 'A custom field name is 1 to 64 letters, digits, - or _.');
      else if (value !== null && !['string', 'number', 'boolean'].includes(typeof value))
        rules.add(`customFields.${key}`, 'A custom field holds a string, a number, true, false or null.');
      else if (typeof value === 'string' && value.length > customValue.maxLength)
        rules.add(`customFields.${key}`, message.maxChars(`customFields.${key}`, customValue.maxLength));
    }
    rules.check();
    const companyId = await ctx.companyId();
    const [taken] = await ctx.sql('SELECT 1 FROM contacts WHERE company_id = $1 AND phone_number = $2', [
      companyId,
      input.phoneNumber,
    ]);
    if (taken) throw ValidationError.field('phoneNumber', message.taken('phoneNumber'));
    const now = this.clock();
    const columns = TEXT_FIELDS.map((f) => COLUMNS[f]);
    const [row] = await ctx.sql<{ id: number }>(
      `INSERT INTO contacts (company_id, phone_number, ${columns.join(', ')}, tags, custom_fields, created_at, updated_at)
       VALUES ($1, $2, ${columns.map((_, i) => `$${i + 3}`).join(', ')}, ${[3, 4, 5, 6].map((i) => `$${columns.length + i}`).join(', ')}) RETURNING id`,
      [
        companyId,
        input.phoneNumber,
        ...TEXT_FIELDS.map((f) => input[f]?.trim() || null),
        JSON.stringify(input.tags ?? []),
        JSON.stringify(custom),
        now,
        now,
      ],
    );
    return (await this.byId(ctx, row.id))!;
  }

  async list(
    ctx: RequestContext,
    args: { search?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<ContactRecord>> {
    const window = pageWindow(args);
    const companyId = await ctx.companyId();
    const pattern = args.search ? likePattern(args.search) : undefined;
    const where = pattern
      ? "company_id = $1 AND (phone_number ILIKE $2 OR coalesce(first_name, '') || ' ' || coalesce(last_name, '') ILIKE $2 OR email ILIKE $2)"
      : 'company_id = $1';
    const params = pattern ? [companyId, pattern] : [companyId];
    const { rows, total } = await readPage<ContactRow>(
      ctx,
      { select: READ_COLUMNS, from: 'contacts', where, orderBy: 'created_at DESC, id DESC', params },
      window,
    );
    return pageOf(rows.map(contactRecord), total, window);
  }

  /** A contact of the context's company by its row id (a lead's, a call's). */
  async byId(ctx: RequestContext, id: number): Promise<ContactRecord | undefined> {
    const [row] = await ctx.sql<ContactRow>(`${SELECT} WHERE id = $1 AND company_id = $2`, [id, await ctx.companyId()]);
    return row && contactRecord(row);
  }
}
