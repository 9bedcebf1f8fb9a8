import { Arg, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { SmsService } from '../services/sms.service.js';
import { PageType } from './pagination.types.js';
import { Direction, MessageStatus } from './enums.js';

@ObjectType('SmsMessage', { simpleResolvers: true })
export class SmsMessageType {
  @Field({ description: "The provider's message id (SM...)" }) id!: string;
  @Field(() => Direction) direction!: string;
  @Field() fromNumber!: string;
  @Field() toNumber!: string;
  @Field() body!: string;
  @Field(() => MessageStatus) status!: string;
  @Field(() => String, { nullable: true, description: "The provider's error code when it failed" }) errorCode!:
    | string
    | null;
  @Field() createdAt!: Date;
}

@ObjectType('SmsMessagePage', { simpleResolvers: true })
export class SmsMessagePageType extends PageType(SmsMessageType) {}

@Resolver()
export class SmsResolver {
  constructor(private readonly smsService: SmsService) {}

  @Authorized('view-sms')
  @Query(() => SmsMessagePageType, { description: 'The SMS log of the company, newest first' })
  async smsMessages(
    @Ctx() ctx: RequestContext,
    @Arg('direction', () => Direction, { nullable: true }) direction: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<SmsMessagePageType> {
    return this.smsService.list(ctx, { direction, page, perPage });
  }

  @Authorized('send-sms')
  @Mutation(() => SmsMessageType, {
    description: "Send an SMS through the provider from one of the company's numbers (default: its first)",
  })
  async sendSms(
    @Ctx() ctx: RequestContext,
    @Arg('to') to: string,
    @Arg('body') body: string,
    @Arg('from', () => String, { nullable: true }) from: string | null,
  ): Promise<SmsMessageType> {
    return this.smsService.send(ctx, { to, body, from });
  }
}
