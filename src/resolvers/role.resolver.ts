import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../context.js';
import type { Role } from '../entities/index.js';
import {
  CreateRoleInput,
  ModuleGrantsType,
  PermissionModuleType,
  RolePageType,
  RolePermissionsInput,
  RolePermissionsType,
  RoleType,
  UpdateRoleInput,
} from './role.types.js';

@Resolver(() => RoleType)
export class RoleResolver {
  @Authorized('view-role')
  @Query(() => RolePageType, { description: 'Roles of the company, newest first' })
  roles(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true }) search: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ) {
    return ctx.services.roles.list(ctx, { search, page, perPage });
  }

  @Authorized('view-role')
  @Query(() => RoleType)
  role(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return ctx.services.roles.find(ctx, id);
  }

  @Authorized('view-role')
  @Query(() => RolePermissionsType, { description: 'Every module with its permissions, marked as held by the role or not' })
  async rolePermissions(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<RolePermissionsType> {
    const { role, modules } = await ctx.services.roles.grants(ctx, id);
    return {
      role,
      modules: modules.map(({ module, permissions }): ModuleGrantsType => ({
        moduleId: module.id,
        slug: module.slug,
        name: module.name,
        permissions: permissions.map(({ permission, granted }) => ({ ...permission, granted })),
      })),
    };
  }

  @Authorized()
  @Query(() => [PermissionModuleType], { description: 'The permission catalog, grouped by module' })
  async permissionModules(@Ctx() ctx: RequestContext): Promise<PermissionModuleType[]> {
    const modules = await ctx.services.roles.catalog(ctx);
    return modules.map((m) => ({ id: m.id, slug: m.slug, name: m.name, permissions: m.permissions.getItems() }));
  }

  @Authorized('edit-role')
  @Mutation(() => RoleType)
  createRole(@Ctx() ctx: RequestContext, @Arg('input') input: CreateRoleInput) {
    return ctx.services.roles.create(ctx, input);
  }

  @Authorized('edit-role')
  @Mutation(() => RoleType)
  updateRole(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string, @Arg('input') input: UpdateRoleInput) {
    return ctx.services.roles.update(ctx, id, input.title);
  }

  @Authorized('assign-role-permission')
  @Mutation(() => RoleType, { description: 'Replace the role permissions (and optionally rename it)' })
  updateRolePermissions(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string, @Arg('input') input: RolePermissionsInput) {
    return ctx.services.roles.updatePermissions(ctx, id, input);
  }

  @Authorized('delete-role')
  @Mutation(() => Boolean)
  async deleteRole(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    await ctx.services.roles.delete(ctx, id);
    return true;
  }

  @FieldResolver(() => String, { description: 'The id encrypted under the app key, bound to roles' })
  encryptedId(@Root() role: Role, @Ctx() ctx: RequestContext) {
    return ctx.services.ids.encrypt('role', role.id);
  }
}
