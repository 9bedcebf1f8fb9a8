import type { RequestContext } from '../context/request-context.js';
import { likePattern, pageOf, pageWindow, type Page } from '../db/reads.js';
import type { Contact } from '../entities/contact.entity.js';
import { contactRepository } from '../repositories/contact.repository.js';
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
const CUSTOM_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A contact as the GraphQL Contact type serves it: the entity's own fields. */
export type ContactRecord = Pick<
  Contact,
  'id' | 'phoneNumber' | (typeof TEXT_FIELDS)[number] | 'tags' | 'customFields' | 'createdAt'
>;

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
    return contactRepository.findOrCreate(ctx, phoneNumber, this.clock());
  }

  /** The contacts of these numbers by number, made where there are none, as plain records in one statement. */
  async peopleOf(ctx: RequestContext, phoneNumbers: string[]): Promise<Map<string, ContactRecord>> {
    return contactRepository.peopleOf(ctx, phoneNumbers, this.clock());
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
    if (await contactRepository.exists(ctx, input.phoneNumber!))
      throw ValidationError.field('phoneNumber', message.taken('phoneNumber'));
    const now = this.clock();
    return contactRepository.create(ctx, {
      phoneNumber: input.phoneNumber!,
      ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, input[f]?.trim() || null])),
      tags: input.tags ?? [],
      customFields: custom,
      createdAt: now,
      updatedAt: now,
    });
  }

  async list(
    ctx: RequestContext,
    args: { search?: string | null; page?: number | null; perPage?: number | null },
  ): Promise<Page<ContactRecord>> {
    const window = pageWindow(args);
    const pattern = args.search ? likePattern(args.search) : undefined;
    const [contacts, total] = await contactRepository.page(ctx, pattern, window);
    return pageOf(contacts, total, window);
  }

  /** A contact of the context's company by its row id (a lead's, a call's). */
  async byId(ctx: RequestContext, id: number): Promise<ContactRecord | undefined> {
    return (await contactRepository.byId(ctx, id)) ?? undefined;
  }
}
