import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthService } from '../services/auth.service.js';
import type { RequestContext } from '../context/request-context.js';
import { LoginResultType, MeType } from './auth.types.js';

@Resolver()
export class AuthResolver {
  constructor(private readonly authService: AuthService) {}

  @Mutation(() => LoginResultType, {
    nullable: true,
    description: 'Sign in; rate limited per IP and per email, each aliased or batched attempt counted',
  })
  login(@Ctx() ctx: RequestContext, @Arg('email') email: string, @Arg('password') password: string) {
    return this.authService.login(ctx, email, password);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Revoke the token of this request' })
  async logout(@Ctx() ctx: RequestContext) {
    await this.authService.logout(ctx);
    return true;
  }

  @Authorized()
  @Query(() => MeType)
  async me(@Ctx() ctx: RequestContext): Promise<MeType> {
    const viewer = await ctx.viewer();
    return { ...viewer, id: String(viewer.user.id), permissions: [...viewer.permissions].sort() };
  }
}
