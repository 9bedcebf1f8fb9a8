import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RoleRecord, RoleService } from '../services/role.service.js';
import type { IdCodec } from '../kernel/ids.js';
import type { RequestContext } from '../context/request-context.js';
import {
  CreateRoleInput,
  PermissionModuleType,
  RolePageType,
  RolePermissionsInput,
  RolePermissionsType,
  RoleType,
  UpdateRoleInput,
} from './role.types.js';

@Resolver(() => RoleType)
export class RoleResolver {
  constructor(
    private readonly roleService: RoleService,
    private readonly ids: IdCodec,
  ) {}

  @Authorized('view-role')
  @Query(() => RolePageType, { description: 'Roles of the company, newest first' })
  roles(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true }) search: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ) {
    return this.roleService.list(ctx, { search, page, perPage });
  }

  @Authorized('view-role')
  @Query(() => RoleType)
  role(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.roleService.view(ctx, id);
  }

  @Authorized('view-role')
  @Query(() => RolePermissionsType, {
    description: 'Every module with its permissions, marked as held by the role or not',
  })
  async rolePermissions(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<RolePermissionsType> {
    return this.roleService.grants(ctx, id);
  }

  @Authorized()
  @Query(() => [PermissionModuleType], { description: 'The permission catalog, grouped by module' })
  async permissionModules(@Ctx() ctx: RequestContext): Promise<PermissionModuleType[]> {
    return this.roleService.catalog(ctx);
  }

  @Authorized('edit-role')
  @Mutation(() => RoleType)
  createRole(@Ctx() ctx: RequestContext, @Arg('input') input: CreateRoleInput) {
    return this.roleService.create(ctx, input);
  }

  @Authorized('edit-role')
  @Mutation(() => RoleType)
  updateRole(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string, @Arg('input') input: UpdateRoleInput) {
    return this.roleService.update(ctx, id, input.title);
  }

  @Authorized('assign-role-permission')
  @Mutation(() => RoleType, { description: 'Replace the role permissions (and optionally rename it)' })
  updateRolePermissions(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input') input: RolePermissionsInput,
  ) {
    return this.roleService.updatePermissions(ctx, id, input);
  }

  @Authorized('delete-role')
  @Mutation(() => Boolean)
  async deleteRole(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    await this.roleService.delete(ctx, id);
    return true;
  }

  @FieldResolver(() => String, { description: 'The id encrypted under the app key, bound to roles' })
  encryptedId(@Root() role: RoleRecord) {
    return this.ids.encrypt('role', role.id);
  }
}
