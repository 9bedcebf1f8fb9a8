import { Agent } from './agent.entity.js';
import { Call } from './call.entity.js';
import { Company } from './company.entity.js';
import { MessagingCampaign } from './messaging-campaign.entity.js';
import { PHONE_TYPES, PhoneNumber, PhoneStatus, UseFor } from './phone-number.entity.js';
import { TelcoAccount } from './telco-account.entity.js';

export { Agent, Call, Company, MessagingCampaign, PHONE_TYPES, PhoneNumber, PhoneStatus, TelcoAccount, UseFor };

export const entities = [Agent, Call, Company, MessagingCampaign, PhoneNumber, TelcoAccount];
