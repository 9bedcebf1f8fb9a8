import { AFTER_DESCRIPTION } from './pagination.types.js';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { PhoneNumberService } from '../services/phone-number.service.js';
import type { TelcoService } from '../services/telco.service.js';
import type { NumberPurchaseService } from '../services/number-purchase.service.js';
import type { RequestContext } from '../context/request-context.js';
import { TELCO_PROVIDER } from '../telco/client.js';
import {
  ActionResultType,
  AvailableNumberType,
  ChatbotAgentOptionsType,
  ImportableCampaignType,
  ImportableNumberType,
  PhoneNumberChangeInput,
  PhoneNumberPageType,
  PhoneNumberType,
  TelcoAccountType,
} from './phone-number.types.js';
import { NumberUse, PhoneType } from './enums.js';

@Resolver()
export class PhoneNumberResolver {
  constructor(
    private readonly phoneNumberService: PhoneNumberService,
    private readonly telcoService: TelcoService,
    private readonly purchases: NumberPurchaseService,
  ) {}

  @Authorized('view-phone-numbers')
  @Query(() => PhoneNumberPageType, { description: 'Numbers of the company, newest first' })
  async phoneNumbers(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true }) search: string | null,
    @Arg('useFor', () => NumberUse, { nullable: true }) useFor: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after: string | null,
  ): Promise<PhoneNumberPageType> {
    return this.phoneNumberService.list(ctx, { search, useFor, page, perPage, after });
  }

  @Authorized()
  @Mutation(() => PhoneNumberType, { description: 'Change the listed fields of a number; the others stay' })
  async updatePhoneNumber(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('input') input: PhoneNumberChangeInput,
  ) {
    return this.phoneNumberService.update(ctx, id, input);
  }

  @Authorized('edit-phone-numbers')
  @Mutation(() => PhoneNumberType, {
    description: 'Assign an active agent as the inbound chatbot, or clear it with null',
  })
  async assignChatbot(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('agentId', () => ID, { nullable: true }) agentId: string | null,
  ) {
    return this.phoneNumberService.assignChatbot(ctx, id, agentId);
  }

  @Authorized()
  @Query(() => ChatbotAgentOptionsType, { description: 'Active agents assignable as inbound chatbot, 15 a page' })
  async chatbotAgents(
    @Ctx() ctx: RequestContext,
    @Arg('q', () => String, { nullable: true }) q: string | null,
    @Arg('id', () => String, { nullable: true }) id: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
  ): Promise<ChatbotAgentOptionsType> {
    const { results, more } = await this.phoneNumberService.chatbotOptions(ctx, { q, id, page });
    return { results, pagination: { more } };
  }

  @Authorized('purchase-phone-numbers')
  @Query(() => [AvailableNumberType], { description: 'Numbers for sale at the provider, each with a purchase token' })
  availablePhoneNumbers(
    @Ctx() ctx: RequestContext,
    @Arg('areaCode', () => String, { nullable: true }) areaCode: string | null,
    @Arg('contains', () => String, { nullable: true }) contains: string | null,
    @Arg('phoneType', () => PhoneType, { nullable: true, description: 'local by default' }) phoneType: string | null,
  ) {
    return this.telcoService.available(ctx, { areaCode, contains, phoneType });
  }

  @Authorized()
  @Mutation(() => ActionResultType, { description: 'Buy a number found by availablePhoneNumbers' })
  purchasePhoneNumber(
    @Ctx() ctx: RequestContext,
    @Arg('provider') provider: string,
    @Arg('phoneNo', { description: 'The purchase token' }) phoneNo: string,
  ) {
    return this.purchases.purchase(ctx, provider, phoneNo);
  }

  @Authorized('import-phone-numbers')
  @Query(() => [ImportableNumberType], { description: 'Numbers on the provider account not imported yet' })
  importableTelcoNumbers(@Ctx() ctx: RequestContext) {
    return this.telcoService.importable(ctx);
  }

  @Authorized()
  @Mutation(() => ActionResultType)
  importTelcoNumber(@Ctx() ctx: RequestContext, @Arg('importToken') importToken: string) {
    return this.telcoService.importNumber(ctx, importToken);
  }

  @Authorized('import-phone-numbers')
  @Query(() => [ImportableCampaignType], { description: 'A2P campaigns on the provider account not imported yet' })
  importableTelcoCampaigns(@Ctx() ctx: RequestContext) {
    return this.telcoService.importableCampaigns(ctx);
  }

  @Authorized()
  @Mutation(() => ActionResultType, {
    description: 'Import a messaging service A2P campaign; its webhooks then point at this service',
  })
  importTelcoCampaign(@Ctx() ctx: RequestContext, @Arg('messagingServiceSid') messagingServiceSid: string) {
    return this.telcoService.importCampaign(ctx, messagingServiceSid);
  }

  @Authorized('manage-telco-account')
  @Query(() => TelcoAccountType, { nullable: true, description: 'The provider account (the token is never returned)' })
  async telcoAccount(@Ctx() ctx: RequestContext): Promise<TelcoAccountType | null> {
    const account = await this.telcoService.account(ctx);
    return account
      ? {
          provider: TELCO_PROVIDER,
          accountSid: account.accountSid,
          balance: account.balance === null || account.balance === undefined ? null : Number(account.balance),
        }
      : null;
  }

  @Authorized('manage-telco-account')
  @Mutation(() => TelcoAccountType, {
    description: 'Set the provider credentials; verified with the provider, which reports the balance',
  })
  async setTelcoAccount(
    @Ctx() ctx: RequestContext,
    @Arg('accountSid') accountSid: string,
    @Arg('authToken') authToken: string,
  ): Promise<TelcoAccountType> {
    const account = await this.telcoService.setAccount(ctx, accountSid, authToken);
    return { provider: TELCO_PROVIDER, accountSid: account.accountSid, balance: Number(account.balance) };
  }
}
