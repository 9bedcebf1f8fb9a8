import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { CursorPageType, PageType } from './pagination.types.js';
import { NumberUse, PhoneNumberStatus, PhoneType, TendlcAnswer } from './enums.js';

@ObjectType('PhoneNumber', { simpleResolvers: true })
export class PhoneNumberType {
  @Field(() => Int) id!: number;
  @Field() base64Id!: string;
  @Field() encryptedId!: string;
  @Field(() => PhoneNumberStatus) status!: string;
  @Field(() => NumberUse) useFor!: string;
  @Field() dialable!: boolean;
  @Field() phoneNo!: string;
  @Field({ description: 'The telephony provider name' }) provider!: string;
  @Field() aiActive!: boolean;
  @Field(() => PhoneType) phoneType!: string;
  @Field(() => String, { nullable: true }) phoneTitle!: string | null;
  @Field() hasSpamProtection!: boolean;
  @Field(() => TendlcAnswer, { nullable: true, description: '10DLC (request field tendlc)' }) tendlcs!: string | null;
  @Field(() => String, { nullable: true, description: 'The inbound chatbot agent id' }) chatbotAgentId!: string | null;
}

@ObjectType('PhoneNumberPage', { simpleResolvers: true })
export class PhoneNumberPageType extends CursorPageType(PhoneNumberType) {}

@ObjectType('AvailableNumber', { simpleResolvers: true })
export class AvailableNumberType {
  @Field() phoneNumber!: string;
  @Field() friendlyName!: string;
  @Field() region!: string;
  @Field(() => PhoneType) phoneType!: string;
  @Field({ description: 'USD' }) price!: string;
  @Field({ description: 'Pass as phoneNo to purchase; valid 15 minutes, once' }) purchaseToken!: string;
}

@ObjectType('ImportableNumber', { simpleResolvers: true })
export class ImportableNumberType {
  @Field() phoneNumber!: string;
  @Field() friendlyName!: string;
  @Field(() => PhoneType) phoneType!: string;
  @Field() providerSid!: string;
  @Field({ description: 'Pass to importTelcoNumber; valid 15 minutes' }) importToken!: string;
}

@ObjectType('ImportableCampaign', { simpleResolvers: true })
export class ImportableCampaignType {
  @Field() messagingServiceSid!: string;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) campaignSid!: string | null;
  @Field() status!: string;
  @Field() useCase!: string;
}

@ObjectType('ActionResult', { simpleResolvers: true })
export class ActionResultType {
  @Field() success!: boolean;
  @Field() message!: string;
}

@ObjectType('ChatbotAgentOption', { simpleResolvers: true })
export class ChatbotAgentOptionType {
  @Field({ description: 'Agent id' }) id!: string;
  @Field({ description: 'Agent name' }) text!: string;
}

@ObjectType('ChatbotAgentPagination', { simpleResolvers: true })
export class ChatbotAgentPaginationType {
  @Field({ description: 'True when another page exists' }) more!: boolean;
}

@ObjectType('ChatbotAgentOptions', { simpleResolvers: true })
export class ChatbotAgentOptionsType {
  @Field(() => [ChatbotAgentOptionType]) results!: ChatbotAgentOptionType[];
  @Field(() => ChatbotAgentPaginationType) pagination!: ChatbotAgentPaginationType;
}

@ObjectType('TelcoAccount', { simpleResolvers: true })
export class TelcoAccountType {
  @Field() provider!: string;
  @Field() accountSid!: string;
  @Field(() => Float, { nullable: true, description: 'USD, as the provider last reported it' }) balance!: number | null;
}

@InputType()
export class PhoneNumberChangeInput {
  @Field(() => String, { nullable: true }) phoneTitle?: string | null;
  @Field(() => PhoneNumberStatus, { nullable: true }) status?: string | null;
  @Field(() => NumberUse, { nullable: true }) useFor?: string | null;
  @Field(() => PhoneType, { nullable: true }) phoneType?: string | null;
  @Field(() => TendlcAnswer, { nullable: true }) tendlc?: string | null;
}

@ObjectType('Agent', { simpleResolvers: true })
export class AgentType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() active!: boolean;
  @Field({ description: 'Online agents take calls now' }) online!: boolean;
}

@ObjectType('AgentPage', { simpleResolvers: true })
export class AgentPageType extends PageType(AgentType) {}
