import { AFTER_DESCRIPTION } from './pagination.types.js';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { SpamService } from '../services/spam.service.js';
import type { IdCodec } from '../ids.js';
import type { RequestContext } from '../context.js';
import { SpamNumberType, type SpamProtectedNumber } from '../entities/index.js';
import { SpamFlagSettingsType, SpamListFilter, SpamProtectedNumberPageType, SpamProtectedNumberType } from './spam.types.js';

const toRow = (ids: IdCodec, row: SpamProtectedNumber): SpamProtectedNumberType => ({
  id: row.id,
  encryptedId: ids.encrypt('spam_protected_number', row.id),
  type: row.type,
  status: row.status,
  pnumber: row.pnumber,
  canEdit: row.type === SpamNumberType.Custom,
  flaggedCarriers: row.flaggedCarriers,
  renewal: { renewsAt: row.renewsAt, autoRenew: row.autoRenew },
  latestCheck: row.latestCheckAt
    ? { checkedAt: row.latestCheckAt, carriersChecked: row.carriersChecked, flaggedCarriers: row.flaggedCarriers }
    : null,
});

@Resolver()
export class SpamResolver {
  constructor(
    private readonly spamService: SpamService,
    private readonly ids: IdCodec,
  ) {}

  @Authorized('view-spam-protected-numbers')
  @Query(() => SpamProtectedNumberPageType, { description: 'Spam-protected numbers of the company, newest first' })
  async spamProtectedNumbers(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => SpamListFilter, { nullable: true }) filter: SpamListFilter | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ): Promise<SpamProtectedNumberPageType> {
    const result = await this.spamService.list(ctx, { ...filter, page, perPage, after });
    return { ...result, records: result.records.map((row) => toRow(this.ids, row)) };
  }

  @Authorized()
  @Mutation(() => SpamProtectedNumberType, { description: 'Change a Custom number (AI and House numbers are not editable)' })
  async updateSpamProtectedNumber(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string, @Arg('pnumber') pnumber: string) {
    return toRow(this.ids, await this.spamService.update(ctx, id, pnumber));
  }

  @Authorized('edit-spam-protected-numbers')
  @Mutation(() => SpamProtectedNumberType, { description: 'Add a Custom number; In Progress until its first check' })
  async addCustomSpamProtectedNumber(@Ctx() ctx: RequestContext, @Arg('pnumber') pnumber: string) {
    return toRow(this.ids, await this.spamService.addCustom(ctx, pnumber));
  }

  @Authorized('edit-spam-protected-numbers')
  @Mutation(() => [SpamProtectedNumberType], { description: 'Run the reputation check now, for one number or every number of the company' })
  async runSpamCheck(@Ctx() ctx: RequestContext, @Arg('id', () => ID, { nullable: true }) id: string | null) {
    return (await this.spamService.checkNow(ctx, id)).map((row) => toRow(this.ids, row));
  }

  @Authorized()
  @Query(() => SpamFlagSettingsType)
  async spamFlagSettings(@Ctx() ctx: RequestContext): Promise<SpamFlagSettingsType> {
    return { minCarriersToFlag: await this.spamService.minCarriers(ctx) };
  }

  @Authorized()
  @Mutation(() => SpamFlagSettingsType, { description: 'Set the threshold; every checked number is re-evaluated at once' })
  async updateSpamFlagSettings(@Ctx() ctx: RequestContext, @Arg('minCarriersToFlag', () => Int) value: number): Promise<SpamFlagSettingsType> {
    return { minCarriersToFlag: await this.spamService.setMinCarriers(ctx, value) };
  }
}
