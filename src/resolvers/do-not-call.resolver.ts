import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { DoNotCallService } from '../services/do-not-call.service.js';
import { DoNotCallSource } from './enums.js';
import { DoNotCallAddedType, DoNotCallEntryType, DoNotCallPageType } from './do-not-call.types.js';
import { AFTER_DESCRIPTION } from './pagination.types.js';

// The do-not-call list (docs/dialer.md): view-campaigns to read, manage-campaigns to change.

@Resolver()
export class DoNotCallResolver {
  constructor(private readonly doNotCall: DoNotCallService) {}

  @Authorized('view-campaigns')
  @Query(() => DoNotCallPageType, { description: "The company's do-not-call list, newest first" })
  doNotCallList(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true, description: 'Part of a number' }) search: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ) {
    return this.doNotCall.list(ctx, { search, page, perPage, after });
  }

  @Authorized('view-campaigns')
  @Query(() => DoNotCallEntryType, { description: "A number's entry; not found when it is not on the list" })
  doNotCallEntry(@Ctx() ctx: RequestContext, @Arg('phoneNumber') phoneNumber: string) {
    return this.doNotCall.entry(ctx, phoneNumber);
  }

  @Authorized('manage-campaigns')
  @Mutation(() => DoNotCallAddedType, { description: 'Puts 1 to 1,000 numbers on the list' })
  addToDoNotCall(
    @Ctx() ctx: RequestContext,
    @Arg('phoneNumbers', () => [String]) phoneNumbers: string[],
    @Arg('note', () => String, { nullable: true }) note: string | null,
    @Arg('source', () => DoNotCallSource, { nullable: true, description: 'api (default) or page' }) source:
      | string
      | null,
  ) {
    return this.doNotCall.add(ctx, { phoneNumbers, note }, source === 'page' ? 'page' : 'api');
  }

  @Authorized('manage-campaigns')
  @Mutation(() => Boolean, { description: 'Takes a number off the list; not found when it is not on it' })
  removeFromDoNotCall(@Ctx() ctx: RequestContext, @Arg('phoneNumber') phoneNumber: string) {
    return this.doNotCall.remove(ctx, phoneNumber);
  }
}
