import { Agent } from './agent.entity.js';
import { Call } from './call.entity.js';
import { Company } from './company.entity.js';
import { MessagingCampaign } from './messaging-campaign.entity.js';
import { PHONE_TYPES, PhoneNumber, PhoneStatus, UseFor } from './phone-number.entity.js';
import { TelcoAccount } from './telco-account.entity.js';
import { Module } from './module.entity.js';
import { Permission } from './permission.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';
import { Pipeline } from './pipeline.entity.js';
import { RevokedToken } from './revoked-token.entity.js';
import { Role } from './role.entity.js';
import { SpamNumberType, SpamProtectedNumber, SpamStatus } from './spam-protected-number.entity.js';
import { User } from './user.entity.js';
import { WorkflowFolder } from './workflow-folder.entity.js';
import { Workflow, WorkflowStatus, type TriggerConfig } from './workflow.entity.js';
import { Webhook, type DisabledReason } from './webhook.entity.js';

export {
  Agent,
  Call,
  Company,
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
  Permission,
  Pipeline,
  PipelineStage,
  RevokedToken,
  Role,
  User,
  Webhook,
  Workflow,
  WorkflowFolder,
  WorkflowStatus,
};
export type { DisabledReason, TriggerConfig };

export const entities = [
  Agent,
  Call,
  Company,
  MessagingCampaign,
  PhoneNumber,
  TelcoAccount,
  SpamProtectedNumber,
  Module,
  Permission,
  Pipeline,
  PipelineStage,
  RevokedToken,
  Role,
  User,
  Webhook,
  Workflow,
  WorkflowFolder,
];
