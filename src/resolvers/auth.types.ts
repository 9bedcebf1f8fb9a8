import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('LoginResult', { simpleResolvers: true })
export class LoginResultType {
  @Field() success!: boolean;
  @Field() message!: string;
  @Field({ description: 'Bearer token for the Authorization header' }) token!: string;
}

@ObjectType('Company', { simpleResolvers: true })
export class CompanyType {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field({ description: 'IANA time zone' }) timeZone!: string;
  @Field() isAgency!: boolean;
}

@ObjectType('User', { simpleResolvers: true })
export class UserType {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() email!: string;
}

@ObjectType('RoleSummary', { simpleResolvers: true })
export class RoleSummaryType {
  @Field(() => Int) id!: number;
  @Field() title!: string;
  @Field() isOwner!: boolean;
}

@ObjectType('Me', { simpleResolvers: true })
export class MeType {
  @Field(() => ID, { description: "The signed-in user's id: one Me per user in a normalized cache" }) id!: string;
  @Field(() => UserType) user!: UserType;
  @Field(() => CompanyType) company!: CompanyType;
  @Field(() => RoleSummaryType) role!: RoleSummaryType;
  @Field(() => [String], { description: 'Permission slugs the user holds' }) permissions!: string[];
}
