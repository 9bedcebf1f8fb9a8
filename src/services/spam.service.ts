import type { RequestContext } from '../context/request-context.js';
import { companyRepository } from '../repositories/company.repository.js';
import type { IdCodec } from '../kernel/ids.js';
import { ValidationError } from '../kernel/errors.js';
import type { ReputationSource } from '../spam/reputation.js';
import { Rules } from '../kernel/validation.js';
import { ownedRow } from '../db/lookup.js';
import { dbDate, likePattern, pageWindow, readNewestPage, type Page, type PageArgs } from '../db/reads.js';
import { BOUNDS } from '../kernel/bounds.js';
import { CARRIER_THRESHOLDS, SpamNumberType, SpamStatus } from '../kernel/vocabulary.js';

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

/** A spam-protected number's row. */
interface SpamRow {
  id: number;
  company_id: number;
  type: SpamNumberType;
  status: SpamStatus;
  pnumber: string;
  flagged_carriers: string[];
  carriers_checked: string[];
  latest_check_at: string | Date | null;
  renews_at: string | Date;
  auto_renew: boolean;
}

const SPAM_COLUMNS =
  'id, company_id, type, status, pnumber, flagged_carriers, carriers_checked, latest_check_at, renews_at, auto_renew';

export class SpamService {
  constructor(
    private readonly ids: IdCodec,
    private readonly source: ReputationSource,
  ) {}

  private record(row: SpamRow): SpamNumberRecord {
    return {
      id: row.id,
      encryptedId: this.ids.encrypt('spam_protected_number', row.id),
      type: row.type,
      status: row.status,
      pnumber: row.pnumber,
      canEdit: row.type === SpamNumberType.Custom,
      flaggedCarriers: row.flagged_carriers,
      renewal: { renewsAt: dbDate(row.renews_at), autoRenew: row.auto_renew },
      latestCheck: row.latest_check_at
        ? {
            checkedAt: dbDate(row.latest_check_at),
            carriersChecked: row.carriers_checked,
            flaggedCarriers: row.flagged_carriers,
          }
        : null,
    };
  }

  /** A number of the company, by any id form; 404 for anything else. */
  private async find(ctx: RequestContext, rawId: string): Promise<SpamRow> {
    return ownedRow<SpamRow>(
      ctx,
      this.ids,
      { table: 'spam_protected_numbers', columns: SPAM_COLUMNS, kind: 'spam_protected_number', what: 'Number' },
      rawId,
    );
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
    const page = await readNewestPage<SpamRow>(
      ctx,
      { table: 'spam_protected_numbers', columns: SPAM_COLUMNS, where, params },
      window,
    );
    return { ...page, records: page.records.map((row) => this.record(row)) };
  }

  /** Changes a Custom number; it is In Progress again until its next check. */
  async update(ctx: RequestContext, rawId: string, pnumber: string): Promise<SpamNumberRecord> {
    const row = await this.find(ctx, rawId);
    this.checkNumber(pnumber);
    if (row.type !== SpamNumberType.Custom) {
      throw new ValidationError({ type: [`${row.type} numbers cannot be edited; only Custom numbers can.`] });
    }
    if (row.pnumber === pnumber.trim()) return this.record(row);
    const [changed] = await ctx.sql<SpamRow>(
      `UPDATE spam_protected_numbers SET pnumber = $2, status = $3, flagged_carriers = '[]', carriers_checked = '[]',
         latest_check_at = NULL, updated_at = now() WHERE id = $1 RETURNING ${SPAM_COLUMNS}`,
      [row.id, pnumber.trim(), SpamStatus.InProgress],
    );
    return this.record(changed);
  }

  async addCustom(ctx: RequestContext, pnumber: string): Promise<SpamNumberRecord> {
    this.checkNumber(pnumber);
    const now = new Date();
    const [row] = await ctx.sql<SpamRow>(
      `INSERT INTO spam_protected_numbers (company_id, type, status, pnumber, renews_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${SPAM_COLUMNS}`,
      [
        await ctx.companyId(),
        SpamNumberType.Custom,
        SpamStatus.InProgress,
        pnumber.trim(),
        new Date(now.getTime() + RENEWAL_DAYS * 86_400_000),
        now,
      ],
    );
    return this.record(row);
  }

  async minCarriers(ctx: RequestContext): Promise<number> {
    return this.thresholdOf(ctx, await ctx.companyId());
  }

  private async thresholdOf(ctx: RequestContext, companyId: number): Promise<number> {
    return (await companyRepository.setting(ctx, 'minCarriersToFlag', companyId)) ?? DEFAULT_MIN_CARRIERS;
  }

  /** Saves the threshold and re-evaluates every checked number of the company in one statement. */
  async setMinCarriers(ctx: RequestContext, value: number): Promise<number> {
    new Rules().required('minCarriersToFlag', value).oneOf('minCarriersToFlag', value, CARRIER_THRESHOLDS).check();
    const companyId = await ctx.companyId();
    // Both statements run in the operation's transaction: the setting and the statuses change together.
    await companyRepository.setSetting(ctx, 'minCarriersToFlag', value);
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
      ? [await this.find(ctx, rawId)]
      : await ctx.sql<SpamRow>(`SELECT ${SPAM_COLUMNS} FROM spam_protected_numbers WHERE company_id = $1 ORDER BY id`, [
          companyId,
        ]);
    return (await this.checkRows(ctx, rows)).map((row) => this.record(row));
  }

  /** The periodic job: numbers never checked, or not checked for `staleMs`. */
  async checkDue(ctx: RequestContext, staleMs: number): Promise<number> {
    const rows = await ctx.sql<SpamRow>(
      `SELECT ${SPAM_COLUMNS} FROM spam_protected_numbers WHERE latest_check_at IS NULL OR latest_check_at < $1
       ORDER BY latest_check_at ASC NULLS FIRST LIMIT 500`,
      [new Date(Date.now() - staleMs)],
    );
    await this.checkRows(ctx, rows);
    return rows.length;
  }

  /** Asks the reputation source of each number and saves what it says; the rows as saved. */
  private async checkRows(ctx: RequestContext, rows: SpamRow[]): Promise<SpamRow[]> {
    const thresholds = new Map<number, number>();
    const checked: SpamRow[] = [];
    for (const row of rows) {
      if (!thresholds.has(row.company_id)) thresholds.set(row.company_id, await this.thresholdOf(ctx, row.company_id));
      const result = await this.source.check(row.pnumber);
      const [saved] = await ctx.sql<SpamRow>(
        `UPDATE spam_protected_numbers SET carriers_checked = $2, flagged_carriers = $3, latest_check_at = $4,
           status = $5, updated_at = now() WHERE id = $1 RETURNING ${SPAM_COLUMNS}`,
        [
          row.id,
          JSON.stringify(result.carriersChecked),
          JSON.stringify(result.flaggedBy),
          new Date(),
          statusFor(result.flaggedBy.length, thresholds.get(row.company_id)!),
        ],
      );
      checked.push(saved);
    }
    return checked;
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
