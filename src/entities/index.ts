import { Agent } from './agent.entity.js';
import { Call } from './call.entity.js';
import { Campaign } from './campaign.entity.js';
import { Lead } from './lead.entity.js';
import { Company } from './company.entity.js';
import { Contact } from './contact.entity.js';
import { EventLog } from './event-log.entity.js';
import { StoredEvent } from './stored-event.entity.js';
import { MessagingCampaign } from './messaging-campaign.entity.js';
import { PHONE_TYPES, PhoneNumber, PhoneStatus, UseFor } from './phone-number.entity.js';
import { TelcoAccount } from './telco-account.entity.js';
import { Module } from './module.entity.js';
import { NumberPurchase } from './number-purchase.entity.js';
import { Permission } from './permission.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';
import { Pipeline } from './pipeline.entity.js';
import { RevokedToken } from './revoked-token.entity.js';
import { Role } from './role.entity.js';
import { SpamNumberType, SpamProtectedNumber, SpamStatus } from './spam-protected-number.entity.js';
import { SmsMessage } from './sms-message.entity.js';
import { User } from './user.entity.js';
import { WorkflowFolder } from './workflow-folder.entity.js';
import { Workflow, WorkflowStatus, type TriggerConfig } from './workflow.entity.js';
import { WebhookAttempt } from './webhook-attempt.entity.js';
import { WebhookDelivery, type DeliveryStatus } from './webhook-delivery.entity.js';
import { Webhook, type DisabledReason } from './webhook.entity.js';

export {
  Agent,
  Call,
  Campaign,
  Company,
  Contact,
  EventLog,
  Lead,
  MessagingCampaign,
  PHONE_TYPES,
  PhoneNumber,
  PhoneStatus,
  TelcoAccount,
  UseFor,
  SpamNumberType,
  SpamProtectedNumber,
  SpamStatus,
  Module,
  NumberPurchase,
  Permission,
  Pipeline,
  PipelineStage,
  RevokedToken,
  Role,
  SmsMessage,
  StoredEvent,
  User,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  Workflow,
  WorkflowFolder,
  WorkflowStatus,
};
export type { DeliveryStatus, DisabledReason, TriggerConfig };

export const entities = [
  Agent,
  Call,
  Campaign,
  Company,
  Contact,
  EventLog,
  Lead,
  MessagingCampaign,
  PhoneNumber,
  TelcoAccount,
  SpamProtectedNumber,
  Module,
  NumberPurchase,
  Permission,
  Pipeline,
  PipelineStage,
  RevokedToken,
  Role,
  SmsMessage,
  StoredEvent,
  User,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  Workflow,
  WorkflowFolder,
];
