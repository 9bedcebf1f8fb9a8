import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { PageType } from './pagination.types.js';

@ObjectType('Role', { simpleResolvers: true })
export class RoleType {
  @Field(() => Int) id!: number;
  @Field() title!: string;
  @Field({ description: 'The company Owner role holds every permission and cannot be changed' }) isOwner!: boolean;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType('RolePage', { simpleResolvers: true })
export class RolePageType extends PageType(RoleType) {}

@ObjectType('Permission', { simpleResolvers: true })
export class PermissionType {
  @Field(() => Int) id!: number;
  @Field() slug!: string;
  @Field() name!: string;
}

@ObjectType('PermissionModule', { simpleResolvers: true })
export class PermissionModuleType {
  @Field(() => Int) id!: number;
  @Field() slug!: string;
  @Field() name!: string;
  @Field(() => [PermissionType]) permissions!: PermissionType[];
}

@ObjectType('PermissionGrant', { simpleResolvers: true })
export class PermissionGrantType {
  @Field(() => Int) id!: number;
  @Field() slug!: string;
  @Field() name!: string;
  @Field({ description: 'Whether the role holds this permission' }) granted!: boolean;
}

@ObjectType('ModuleGrants', { simpleResolvers: true })
export class ModuleGrantsType {
  @Field(() => Int) moduleId!: number;
  @Field() slug!: string;
  @Field() name!: string;
  @Field(() => [PermissionGrantType]) permissions!: PermissionGrantType[];
}

@ObjectType('RolePermissions', { simpleResolvers: true })
export class RolePermissionsType {
  @Field(() => RoleType) role!: RoleType;
  @Field(() => [ModuleGrantsType]) modules!: ModuleGrantsType[];
}

@InputType()
export class ModulePermissionsInput {
  @Field(() => Int) moduleId!: number;
  @Field(() => [Int], { nullable: true }) permissions?: number[];
  @Field(() => [Int], { nullable: true, description: 'Same as permissions' }) permissionIds?: number[];
}

@InputType()
export class CreateRoleInput {
  @Field() title!: string;
  @Field(() => [Int], { nullable: true }) permissions?: number[];
}

@InputType()
export class UpdateRoleInput {
  @Field() title!: string;
}

@InputType({ description: 'Either permissions (replaces the role permissions; empty clears them) or modules' })
export class RolePermissionsInput {
  @Field(() => [Int], { nullable: true }) permissions?: number[];
  @Field(() => [ModulePermissionsInput], { nullable: true }) modules?: ModulePermissionsInput[];
  @Field({ nullable: true, description: 'Optional rename in the same change' }) title?: string;
}
