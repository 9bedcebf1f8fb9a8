import { Extensions, Field, InputType, Int, ObjectType } from 'type-graphql';
import { CARRIER_THRESHOLDS } from '../kernel/vocabulary.js';
import { CursorPageType } from './pagination.types.js';
import { SpamCheckStatus, SpamNumberKind } from './enums.js';

@ObjectType('SpamRenewal', { simpleResolvers: true })
export class SpamRenewalType {
  @Field() renewsAt!: Date;
  @Field() autoRenew!: boolean;
}

@ObjectType('SpamCheck', { simpleResolvers: true })
export class SpamCheckType {
  @Field() checkedAt!: Date;
  @Field(() => [String]) carriersChecked!: string[];
  @Field(() => [String]) flaggedCarriers!: string[];
}

@ObjectType('SpamProtectedNumber', { simpleResolvers: true })
export class SpamProtectedNumberType {
  @Field(() => Int) id!: number;
  @Field() encryptedId!: string;
  @Field(() => SpamNumberKind) type!: string;
  @Field(() => SpamCheckStatus) status!: string;
  @Field() pnumber!: string;
  @Field({ description: 'True for Custom numbers, the only editable ones' }) canEdit!: boolean;
  @Field(() => [String], { description: 'Carriers that flagged the number at the latest check' })
  flaggedCarriers!: string[];
  @Field(() => SpamRenewalType) renewal!: SpamRenewalType;
  @Field(() => SpamCheckType, { nullable: true, description: 'Null until the first check' })
  latestCheck!: SpamCheckType | null;
}

@ObjectType('SpamProtectedNumberPage', { simpleResolvers: true })
export class SpamProtectedNumberPageType extends CursorPageType(SpamProtectedNumberType) {}

@ObjectType('SpamFlagSettings', { simpleResolvers: true })
export class SpamFlagSettingsType {
  @Field(() => Int, { description: '1, 2 or 3' })
  @Extensions({ jsonSchema: { enum: [...CARRIER_THRESHOLDS] } })
  minCarriersToFlag!: number;
}

@InputType()
export class SpamListFilter {
  @Field(() => String, { nullable: true }) search?: string | null;
  @Field(() => SpamCheckStatus, { nullable: true, description: 'Omitted: every status' }) status?: string | null;
  @Field(() => SpamNumberKind, { nullable: true, description: 'Omitted: every type' }) type?: string | null;
}
