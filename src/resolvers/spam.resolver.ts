import { AFTER_DESCRIPTION } from './pagination.types.js';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { SpamService } from '../services/spam.service.js';
import type { RequestContext } from '../context/request-context.js';
import {
  SpamFlagSettingsType,
  SpamListFilter,
  SpamProtectedNumberPageType,
  SpamProtectedNumberType,
} from './spam.types.js';

@Resolver()
export class SpamResolver {
  constructor(private readonly spamService: SpamService) {}

  @Authorized('view-spam-protected-numbers')
  @Query(() => SpamProtectedNumberPageType, { description: 'Spam-protected numbers of the company, newest first' })
  async spamProtectedNumbers(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => SpamListFilter, { nullable: true }) filter: SpamListFilter | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ): Promise<SpamProtectedNumberPageType> {
    return this.spamService.list(ctx, { ...filter, page, perPage, after });
  }

  @Authorized()
  @Mutation(() => SpamProtectedNumberType, {
    description: 'Change a Custom number (AI and House numbers are not editable)',
  })
  async updateSpamProtectedNumber(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('pnumber') pnumber: string,
  ) {
    return this.spamService.update(ctx, id, pnumber);
  }

  @Authorized('edit-spam-protected-numbers')
  @Mutation(() => SpamProtectedNumberType, { description: 'Add a Custom number; In Progress until its first check' })
  async addCustomSpamProtectedNumber(@Ctx() ctx: RequestContext, @Arg('pnumber') pnumber: string) {
    return this.spamService.addCustom(ctx, pnumber);
  }

  @Authorized('edit-spam-protected-numbers')
  @Mutation(() => [SpamProtectedNumberType], {
    description: 'Run the reputation check now, for one number or every number of the company',
  })
  async runSpamCheck(@Ctx() ctx: RequestContext, @Arg('id', () => ID, { nullable: true }) id: string | null) {
    return this.spamService.checkNow(ctx, id);
  }

  @Authorized()
  @Query(() => SpamFlagSettingsType)
  async spamFlagSettings(@Ctx() ctx: RequestContext): Promise<SpamFlagSettingsType> {
    return { minCarriersToFlag: await this.spamService.minCarriers(ctx) };
  }

  @Authorized()
  @Mutation(() => SpamFlagSettingsType, {
    description: 'Set the threshold; every checked number is re-evaluated at once',
  })
  async updateSpamFlagSettings(
    @Ctx() ctx: RequestContext,
    @Arg('minCarriersToFlag', () => Int) value: number,
  ): Promise<SpamFlagSettingsType> {
    return { minCarriersToFlag: await this.spamService.setMinCarriers(ctx, value) };
  }
}
