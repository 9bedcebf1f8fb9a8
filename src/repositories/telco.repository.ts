import type { RequestContext } from '../context/request-context.js';
import { MessagingCampaign } from '../entities/messaging-campaign.entity.js';
import { PhoneNumber } from '../entities/phone-number.entity.js';
import { TelcoAccount } from '../entities/telco-account.entity.js';

// A company's account at the provider, and what it imported from it (numbers, A2P messaging campaigns): the one
// module that knows their tables.

export const telcoRepository = {
  async account(ctx: RequestContext): Promise<TelcoAccount | null> {
    return ctx.em.findOne(TelcoAccount, { company: await ctx.companyId() });
  },

  /** Stores the company's account (one per company: made, or changed in place). */
  async saveAccount(
    ctx: RequestContext,
    fields: Pick<TelcoAccount, 'accountSid' | 'authTokenSealed' | 'balance'>,
  ): Promise<TelcoAccount> {
    const now = new Date();
    return ctx.em.upsert(
      TelcoAccount,
      { company: await ctx.companyId(), ...fields, createdAt: now, updatedAt: now },
      {
        onConflictFields: ['company'],
        onConflictAction: 'merge',
        onConflictMergeFields: ['accountSid', 'authTokenSealed', 'balance', 'updatedAt'],
      },
    );
  },

  /**
   * The account whose sid this is, read across companies (a provider callback's): when several companies share
   * it, the one that owns `number`, else the first.
   */
  async accountOfCallback(ctx: RequestContext, accountSid: string, number: string): Promise<TelcoAccount | null> {
    const accounts = await ctx.em.find(TelcoAccount, { accountSid }, { orderBy: { company: 'asc' } });
    if (accounts.length < 2) return accounts[0] ?? null;
    const owner = await ctx.em.findOne(
      PhoneNumber,
      { phoneNo: number, company: { $in: accounts.map((account) => account.company.id) } },
      { fields: ['company'] },
    );
    return accounts.find((account) => account.company.id === owner?.company.id) ?? accounts[0];
  },

  /** Which of these numbers some company has already (a number is one company's, whichever). */
  async numbersTaken(ctx: RequestContext, numbers: string[]): Promise<Set<string>> {
    if (numbers.length === 0) return new Set();
    const taken = await ctx.em.find(PhoneNumber, { phoneNo: { $in: numbers } }, { fields: ['phoneNo'] });
    return new Set(taken.map((number) => number.phoneNo));
  },

  async addNumber(
    ctx: RequestContext,
    fields: Pick<PhoneNumber, 'phoneNo' | 'providerSid' | 'phoneType' | 'phoneTitle' | 'status'>,
  ): Promise<PhoneNumber> {
    const number = ctx.em.create(PhoneNumber, { ...fields, company: await ctx.companyId() });
    await ctx.em.flush();
    return number;
  },

  /** The messaging services whose campaign the company has imported. */
  async importedServices(ctx: RequestContext): Promise<Set<string>> {
    const found = await ctx.em.find(
      MessagingCampaign,
      { company: await ctx.companyId() },
      { fields: ['messagingServiceSid'] },
    );
    return new Set(found.map((campaign) => campaign.messagingServiceSid));
  },

  async addCampaign(
    ctx: RequestContext,
    fields: Pick<MessagingCampaign, 'messagingServiceSid' | 'campaignSid' | 'name' | 'status' | 'useCase'>,
  ): Promise<MessagingCampaign> {
    const campaign = ctx.em.create(MessagingCampaign, { ...fields, company: await ctx.companyId() });
    await ctx.em.flush();
    return campaign;
  },
};
