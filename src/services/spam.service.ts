import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { Company, SpamNumberType, SpamProtectedNumber, SpamStatus } from '../entities/index.js';
import { ValidationError } from '../kernel/errors.js';
import type { ReputationSource } from '../spam/reputation.js';
import { Rules } from '../kernel/validation.js';
import { findOwned, findPageByKeys } from '../db/lookup.js';
import { likePattern, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import { BOUNDS } from '../kernel/bounds.js';
import { CARRIER_THRESHOLDS } from '../kernel/vocabulary.js';

export const DEFAULT_MIN_CARRIERS = 1;
const RENEWAL_DAYS = 30;

export interface SpamListArgs extends PageArgs {
  search?: string | null;
  /** All (or absent) for every status. */
  status?: string | null;
  /** All (or absent) for every type. */
  type?: string | null;
}

/** Flagged when at least `minCarriers` carriers flag the number, else Clean. */
export const statusFor = (flagged: number, minCarriers: number) =>
  flagged >= minCarriers ? SpamStatus.Flagged : SpamStatus.Clean;

/** A spam-protected number as the GraphQL SpamProtectedNumber type serves it. */
export interface SpamNumberRecord {
  id: number;
  encryptedId: string;
  type: string;
  status: string;
  pnumber: string;
  canEdit: boolean;
  flaggedCarriers: string[];
  renewal: { renewsAt: Date; autoRenew: boolean };
  latestCheck: { checkedAt: Date; carriersChecked: string[]; flaggedCarriers: string[] } | null;
}

export class SpamService {
  constructor(
    private readonly ids: IdCodec,
    private readonly source: ReputationSource,
  ) {}

  private record(row: SpamProtectedNumber): SpamNumberRecord {
    return {
      id: row.id,
      encryptedId: this.ids.encrypt('spam_protected_number', row.id),
      type: row.type,
      status: row.status,
      pnumber: row.pnumber,
      canEdit: row.type === SpamNumberType.Custom,
      flaggedCarriers: row.flaggedCarriers,
      renewal: { renewsAt: row.renewsAt, autoRenew: row.autoRenew },
      latestCheck: row.latestCheckAt
        ? { checkedAt: row.latestCheckAt, carriersChecked: row.carriersChecked, flaggedCarriers: row.flaggedCarriers }
        : null,
    };
  }

  async list(ctx: RequestContext, args: SpamListArgs): Promise<Page<SpamNumberRecord>> {
    const rules = new Rules()
      .oneOf('status', args.status, ['All', ...Object.values(SpamStatus)])
      .oneOf('type', args.type, ['All', ...Object.values(SpamNumberType)]);
    rules.check();
    const window = pageWindow(args);
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (args.status && args.status !== 'All') where += ` AND status = $${params.push(args.status)}`;
    if (args.type && args.type !== 'All') where += ` AND type = $${params.push(args.type)}`;
    if (args.search) {
      const p = `$${params.push(likePattern(args.search))}`;
      where += ` AND (pnumber ILIKE ${p} OR type ILIKE ${p} OR status ILIKE ${p})`;
    }
    const page = await findPageByKeys(
      ctx,
      SpamProtectedNumber,
      { from: 'spam_protected_numbers', where, params },
      window,
    );
    return { ...page, records: page.records.map((row) => this.record(row)) };
  }

  /** Changes a Custom number; it is In Progress again until its next check. */
  async update(ctx: RequestContext, rawId: string, pnumber: string): Promise<SpamNumberRecord> {
    const row = await findOwned(ctx, this.ids, SpamProtectedNumber, rawId, 'spam_protected_number', 'Number');
    this.checkNumber(pnumber);
    if (row.type !== SpamNumberType.Custom) {
      throw new ValidationError({ type: [`${row.type} numbers cannot be edited; only Custom numbers can.`] });
    }
    if (row.pnumber !== pnumber.trim()) {
      row.pnumber = pnumber.trim();
      row.status = SpamStatus.InProgress;
      row.flaggedCarriers = [];
      row.carriersChecked = [];
      row.latestCheckAt = null;
    }
    await ctx.em.flush();
    return this.record(row);
  }

  async addCustom(ctx: RequestContext, pnumber: string): Promise<SpamNumberRecord> {
    this.checkNumber(pnumber);
    const row = ctx.em.create(SpamProtectedNumber, {
      company: await ctx.companyId(),
      type: SpamNumberType.Custom,
      pnumber: pnumber.trim(),
      renewsAt: new Date(Date.now() + RENEWAL_DAYS * 86_400_000),
    });
    await ctx.em.flush();
    return this.record(row);
  }

  async minCarriers(ctx: RequestContext): Promise<number> {
    const company = await ctx.em.findOneOrFail(Company, await ctx.companyId());
    return company.settings.minCarriersToFlag ?? DEFAULT_MIN_CARRIERS;
  }

  /** Saves the threshold and re-evaluates every checked number of the company in one statement. */
  async setMinCarriers(ctx: RequestContext, value: number): Promise<number> {
    new Rules().required('minCarriersToFlag', value).oneOf('minCarriersToFlag', value, CARRIER_THRESHOLDS).check();
    const companyId = await ctx.companyId();
    // Both statements run in the operation's transaction: the setting and the statuses change together.
    await ctx.sql(
      `UPDATE companies SET settings = jsonb_set(settings, '{minCarriersToFlag}', to_jsonb($1::int)), updated_at = now() WHERE id = $2`,
      [value, companyId],
    );
    await ctx.sql(
      `UPDATE spam_protected_numbers
       SET status = CASE WHEN jsonb_array_length(flagged_carriers) >= $1 THEN 'Flagged' ELSE 'Clean' END, updated_at = now()
       WHERE company_id = $2 AND latest_check_at IS NOT NULL`,
      [value, companyId],
    );
    return value;
  }

  /** Checks numbers now: one of the company's, or all of them. */
  async checkNow(ctx: RequestContext, rawId?: string | null): Promise<SpamNumberRecord[]> {
    const companyId = await ctx.companyId();
    const rows = rawId
      ? [await findOwned(ctx, this.ids, SpamProtectedNumber, rawId, 'spam_protected_number', 'Number')]
      : await ctx.em.find(SpamProtectedNumber, { company: companyId }, { orderBy: { id: 'asc' } });
    await this.checkRows(ctx, rows);
    return rows.map((row) => this.record(row));
  }

  /** The periodic job: numbers never checked, or not checked for `staleMs`. */
  async checkDue(ctx: RequestContext, staleMs: number): Promise<number> {
    const rows = await ctx.em.find(
      SpamProtectedNumber,
      {
        $or: [{ latestCheckAt: null }, { latestCheckAt: { $lt: new Date(Date.now() - staleMs) } }],
      },
      { limit: 500, orderBy: { latestCheckAt: 'asc nulls first' } },
    );
    await this.checkRows(ctx, rows);
    return rows.length;
  }

  private async checkRows(ctx: RequestContext, rows: SpamProtectedNumber[]): Promise<void> {
    const thresholds = new Map<number, number>();
    for (const row of rows) {
      if (!thresholds.has(row.company.id)) {
        const company = await ctx.em.findOneOrFail(Company, row.company.id);
        thresholds.set(row.company.id, company.settings.minCarriersToFlag ?? DEFAULT_MIN_CARRIERS);
      }
      const result = await this.source.check(row.pnumber);
      row.carriersChecked = result.carriersChecked;
      row.flaggedCarriers = result.flaggedBy;
      row.latestCheckAt = new Date();
      row.status = statusFor(result.flaggedBy.length, thresholds.get(row.company.id)!);
    }
    await ctx.em.flush();
  }

  private checkNumber(pnumber: string): void {
    const rules = new Rules()
      .required('pnumber', pnumber)
      .maxChars('pnumber', pnumber, BOUNDS.spamNumber.pnumber.maxLength);
    if (!rules.has('pnumber') && !/^\+?[0-9 ()-]+$/.test(pnumber.trim()))
      rules.add('pnumber', 'The pnumber field must be a phone number.');
    rules.check();
  }
}
