import type { RequestContext } from '../context/request-context.js';
import type { Campaign } from '../entities/campaign.entity.js';
import { Contact } from '../entities/contact.entity.js';
import { Lead, type LeadVariables } from '../entities/lead.entity.js';

// A campaign's leads written a batch at a time (services/lead-import.service.ts): the contacts made where their
// number is new to the company, then the leads whose key the campaign does not have yet: a statement each.
// Nothing is held in the unit of work's identity map: an import of 100,000 leads would make its flush slow.

/** A checked row of an import. */
export interface NewLead {
  phoneNumber: string;
  key: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  source: string | null;
  variables: LeadVariables;
  timeZone: string | null;
  timeZones: string[];
}

/** A lead an import added, with its contact as the events carry it. */
export interface AddedLead {
  id: number;
  source: string | null;
  contact: Contact;
}

export const leadImportRepository = {
  /** Adds the leads whose key is new to the campaign (a key given twice in `leads`: its first); the ones added. */
  async add(ctx: RequestContext, campaign: Campaign, leads: NewLead[], now: Date): Promise<AddedLead[]> {
    const company = await ctx.companyId();
    const first = new Map<string, NewLead>();
    for (const lead of leads) if (!first.has(lead.phoneNumber)) first.set(lead.phoneNumber, lead);
    // Upserted to get every row back in the one statement, new or not: setting a contact's number to itself
    // changes nothing of it (a SELECT by number instead is planned on the statistics from before the import).
    const contacts: Contact[] = await ctx.em
      .createQueryBuilder(Contact)
      .insert(
        [...first.values()].map(({ phoneNumber, firstName, lastName, email }) => ({
          company,
          phoneNumber,
          firstName,
          lastName,
          email,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .onConflict(['company', 'phoneNumber'])
      .merge(['phoneNumber'])
      .returning('*')
      .execute('all', true);
    const byNumber = new Map(contacts.map((contact) => [contact.phoneNumber, contact]));
    const rows: Array<{ id: number; key: string }> = await ctx.em
      .createQueryBuilder(Lead)
      .insert(
        leads.map((lead) => ({
          company,
          contact: byNumber.get(lead.phoneNumber)!.id,
          campaign: campaign.id,
          key: lead.key,
          source: lead.source,
          variables: lead.variables,
          timeZone: lead.timeZone,
          timeZones: lead.timeZones,
          state: 'pending',
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .onConflict(['campaign', 'key'])
      .ignore()
      .returning(['id', 'key'])
      .execute('all', true);
    const byKey = new Map<string, NewLead>();
    for (const lead of leads) if (!byKey.has(lead.key)) byKey.set(lead.key, lead);
    return rows.map(({ id, key }) => {
      const lead = byKey.get(key)!;
      return { id, source: lead.source, contact: byNumber.get(lead.phoneNumber)! };
    });
  },
};
