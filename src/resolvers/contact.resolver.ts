import { GraphQLJSONObject } from 'graphql-scalars';
import {
  Arg,
  Authorized,
  Ctx,
  Extensions,
  Field,
  InputType,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
} from 'type-graphql';
import { BOUNDS, scalarValues } from '../kernel/bounds.js';
import type { RequestContext } from '../context/request-context.js';
import type { ContactService } from '../services/contact.service.js';
import { PageType } from './pagination.types.js';

@ObjectType('Contact', { simpleResolvers: true })
export class ContactType {
  @Field(() => Int) id!: number;
  @Field({ description: 'E.164; one contact per number in a company' }) phoneNumber!: string;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true }) firstName!: string | null;
  @Field(() => String, { nullable: true }) lastName!: string | null;
  @Field(() => String, { nullable: true }) address!: string | null;
  @Field(() => String, { nullable: true }) city!: string | null;
  @Field(() => String, { nullable: true }) state!: string | null;
  @Field(() => String, { nullable: true }) zip!: string | null;
  @Field(() => String, { nullable: true }) country!: string | null;
  @Field(() => String, { nullable: true }) companyName!: string | null;
  @Field(() => [String]) tags!: string[];
  @Field(() => GraphQLJSONObject, { description: 'Free keys: strings, numbers, booleans or null' })
  @Extensions({ jsonSchema: scalarValues(BOUNDS.contact.customValue.maxLength) })
  customFields!: Record<string, unknown>;
  @Field() createdAt!: Date;
}

@ObjectType('ContactPage', { simpleResolvers: true })
export class ContactPageType extends PageType(ContactType) {}

@InputType('ContactInput')
export class ContactInput {
  @Field(() => String) phoneNumber!: string;
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => String, { nullable: true }) firstName?: string | null;
  @Field(() => String, { nullable: true }) lastName?: string | null;
  @Field(() => String, { nullable: true }) address?: string | null;
  @Field(() => String, { nullable: true }) city?: string | null;
  @Field(() => String, { nullable: true }) state?: string | null;
  @Field(() => String, { nullable: true }) zip?: string | null;
  @Field(() => String, { nullable: true }) country?: string | null;
  @Field(() => String, { nullable: true }) companyName?: string | null;
  @Field(() => [String], { nullable: true }) tags?: string[] | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) customFields?: Record<string, unknown> | null;
}

@Resolver()
export class ContactResolver {
  constructor(private readonly contactService: ContactService) {}

  @Authorized('view-contacts')
  @Query(() => ContactPageType, { description: 'Contacts of the company, newest first' })
  async contacts(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true, description: 'Matches the number, the name or the email' }) search:
      | string
      | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<ContactPageType> {
    return this.contactService.list(ctx, { search, page, perPage });
  }

  @Authorized('edit-contacts')
  @Mutation(() => ContactType)
  async createContact(@Ctx() ctx: RequestContext, @Arg('input') input: ContactInput): Promise<ContactType> {
    return this.contactService.create(ctx, input);
  }
}
