import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { Company, type CompanySettings } from '../entities/company.entity.js';

// A company's own record: its settings, one key at a time.

export const companyRepository = {
  /** One of the company's settings (the caller's company unless `companyId`), undefined when never set. */
  async setting<K extends keyof CompanySettings>(
    ctx: RequestContext,
    key: K,
    companyId?: number,
  ): Promise<CompanySettings[K] | undefined> {
    const company = await ctx.em.findOne(Company, companyId ?? (await ctx.companyId()), { fields: ['settings'] });
    return company?.settings[key];
  },

  /** The agency's company `companyId`, when it is one of `parentId`'s. */
  child(ctx: RequestContext, companyId: number, parentId: number): Promise<Company | null> {
    return ctx.em.findOne(Company, { id: companyId, parent: parentId });
  },

  /** Sets one of the caller's company's settings; the company is locked until the unit of work ends, so two writes of different keys keep both. */
  async setSetting<K extends keyof CompanySettings>(
    ctx: RequestContext,
    key: K,
    value: CompanySettings[K],
  ): Promise<void> {
    const company = await ctx.em.findOneOrFail(Company, await ctx.companyId(), {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    company.settings = { ...company.settings, [key]: value };
    await ctx.em.flush();
  },
};
