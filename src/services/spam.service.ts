import type { RequestContext } from '../context/request-context.js';
import { companyRepository } from '../repositories/company.repository.js';
import type { IdCodec } from '../kernel/ids.js';
import { ValidationError } from '../kernel/errors.js';
import type { ReputationSource } from '../spam/reputation.js';
import { Rules } from '../kernel/validation.js';
import { likePattern, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { SpamProtectedNumber } from '../entities/spam-protected-number.entity.js';
import type { Listed } from '../repositories/common.js';
import { type SpamListed, spamRepository } from '../repositories/spam.repository.js';
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

export class SpamService {
  constructor(
    private readonly ids: IdCodec,
    private readonly source: ReputationSource,
  ) {}

  private record(number: Listed<SpamProtectedNumber, SpamListed>): SpamNumberRecord {
    return {
      id: number.id,
      encryptedId: this.ids.encrypt('spam_protected_number', number.id),
      type: number.type,
      status: number.status,
      pnumber: number.pnumber,
      canEdit: number.type === SpamNumberType.Custom,
      flaggedCarriers: number.flaggedCarriers,
      renewal: { renewsAt: number.renewsAt, autoRenew: number.autoRenew },
      latestCheck: number.latestCheckAt
        ? {
            checkedAt: number.latestCheckAt,
            carriersChecked: number.carriersChecked,
            flaggedCarriers: number.flaggedCarriers,
          }
        : null,
    };
  }

  async list(ctx: RequestContext, args: SpamListArgs): Promise<Page<SpamNumberRecord>> {
    const rules = new Rules()
      .oneOf('status', args.status, ['All', ...Object.values(SpamStatus)])
      .oneOf('type', args.type, ['All', ...Object.values(SpamNumberType)]);
    rules.check();
    const window = pageWindow(args);
    const page = await spamRepository.page(
      ctx,
      {
        status: args.status && args.status !== 'All' ? (args.status as SpamStatus) : undefined,
        type: args.type && args.type !== 'All' ? (args.type as SpamNumberType) : undefined,
        pattern: args.search ? likePattern(args.search) : undefined,
      },
      window,
    );
    return { ...page, records: page.records.map((number) => this.record(number)) };
  }

  /** Changes a Custom number; it is In Progress again until its next check. */
  async update(ctx: RequestContext, rawId: string, pnumber: string): Promise<SpamNumberRecord> {
    const number = await spamRepository.find(ctx, this.ids, rawId);
    this.checkNumber(pnumber);
    if (number.type !== SpamNumberType.Custom) {
      throw new ValidationError({ type: [`${number.type} numbers cannot be edited; only Custom numbers can.`] });
    }
    if (number.pnumber === pnumber.trim()) return this.record(number);
    Object.assign(number, {
      pnumber: pnumber.trim(),
      status: SpamStatus.InProgress,
      flaggedCarriers: [],
      carriersChecked: [],
      latestCheckAt: null,
    });
    await spamRepository.save(ctx);
    return this.record(number);
  }

  async addCustom(ctx: RequestContext, pnumber: string): Promise<SpamNumberRecord> {
    this.checkNumber(pnumber);
    const number = await spamRepository.create(ctx, {
      type: SpamNumberType.Custom,
      status: SpamStatus.InProgress,
      pnumber: pnumber.trim(),
      renewsAt: new Date(Date.now() + RENEWAL_DAYS * 86_400_000),
    });
    return this.record(number);
  }

  async minCarriers(ctx: RequestContext): Promise<number> {
    return this.thresholdOf(ctx, await ctx.companyId());
  }

  private async thresholdOf(ctx: RequestContext, companyId: number): Promise<number> {
    return (await companyRepository.setting(ctx, 'minCarriersToFlag', companyId)) ?? DEFAULT_MIN_CARRIERS;
  }

  /** Saves the threshold and re-evaluates every checked number of the company, in the operation's unit of work. */
  async setMinCarriers(ctx: RequestContext, value: number): Promise<number> {
    new Rules().required('minCarriersToFlag', value).oneOf('minCarriersToFlag', value, CARRIER_THRESHOLDS).check();
    // The setting and the statuses change together: one transaction.
    await companyRepository.setSetting(ctx, 'minCarriersToFlag', value);
    for (const number of await spamRepository.ofCompany(ctx, true))
      number.status = statusFor(number.flaggedCarriers.length, value);
    await spamRepository.save(ctx);
    return value;
  }

  /** Checks numbers now: one of the company's, or all of them. */
  async checkNow(ctx: RequestContext, rawId?: string | null): Promise<SpamNumberRecord[]> {
    const numbers = rawId ? [await spamRepository.find(ctx, this.ids, rawId)] : await spamRepository.ofCompany(ctx);
    return (await this.check(ctx, numbers)).map((number) => this.record(number));
  }

  /** The periodic job: numbers never checked, or not checked for `staleMs`. */
  async checkDue(ctx: RequestContext, staleMs: number): Promise<number> {
    const numbers = await spamRepository.due(ctx, new Date(Date.now() - staleMs), 500);
    await this.check(ctx, numbers);
    return numbers.length;
  }

  /** Asks the reputation source of each number and saves what it says; the numbers as saved. */
  private async check(ctx: RequestContext, numbers: SpamProtectedNumber[]): Promise<SpamProtectedNumber[]> {
    const thresholds = new Map<number, number>();
    for (const number of numbers) {
      const company = number.company.id;
      if (!thresholds.has(company)) thresholds.set(company, await this.thresholdOf(ctx, company));
      const result = await this.source.check(number.pnumber);
      Object.assign(number, {
        carriersChecked: result.carriersChecked,
        flaggedCarriers: result.flaggedBy,
        latestCheckAt: new Date(),
        status: statusFor(result.flaggedBy.length, thresholds.get(company)!),
      });
    }
    await spamRepository.save(ctx);
    return numbers;
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
