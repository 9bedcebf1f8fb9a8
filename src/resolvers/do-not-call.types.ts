import { Field, Int, ObjectType } from 'type-graphql';
import { CursorPageType } from './pagination.types.js';

// The do-not-call list (docs/dialer.md).

@ObjectType('DoNotCallEntry', { simpleResolvers: true, description: 'A number the dialer never calls' })
export class DoNotCallEntryType {
  @Field({ description: 'E.164' }) phoneNumber!: string;
  @Field({ description: 'api, page, or sms_stop (its owner texted a stop word)' }) source!: string;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field() createdAt!: Date;
}

@ObjectType('DoNotCallPage', { simpleResolvers: true })
export class DoNotCallPageType extends CursorPageType(DoNotCallEntryType) {}

@ObjectType('DoNotCallAdded', { simpleResolvers: true })
export class DoNotCallAddedType {
  @Field(() => Int, { description: 'Numbers put on the list' }) added!: number;
  @Field(() => Int, { description: 'Numbers that were on it already (their entries kept)' }) alreadyListed!: number;
}
