import { Agent } from './agent.entity.js';
import { AgentTool } from './agent-tool.entity.js';
import { Call } from './call.entity.js';
import { CallPathStat } from './call-path-stat.entity.js';
import { CallTurn } from './call-turn.entity.js';
import { Campaign } from './campaign.entity.js';
import { Company } from './company.entity.js';
import { Contact } from './contact.entity.js';
import { DecisionEndpoint } from './decision-endpoint.entity.js';
import { DoNotCallEntry } from './do-not-call-entry.entity.js';
import { EventLog } from './event-log.entity.js';
import { LeadAttempt } from './lead-attempt.entity.js';
import { IdempotencyKey } from './idempotency-key.entity.js';
import { Lead } from './lead.entity.js';
import { ListenExchange } from './listen-exchange.entity.js';
import { ListenSession } from './listen-session.entity.js';
import { MessagingCampaign } from './messaging-campaign.entity.js';
import { NumberPurchase } from './number-purchase.entity.js';
import { Permission } from './permission.entity.js';
import { PermissionModule } from './permission-module.entity.js';
import { PhoneNumber } from './phone-number.entity.js';
import { Pipeline } from './pipeline.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';
import { RevokedToken } from './revoked-token.entity.js';
import { Role } from './role.entity.js';
import { SmsMessage } from './sms-message.entity.js';
import { SpamProtectedNumber } from './spam-protected-number.entity.js';
import { StoredEvent } from './stored-event.entity.js';
import { TelcoAccount } from './telco-account.entity.js';
import { User } from './user.entity.js';
import { Webhook } from './webhook.entity.js';
import { WebhookAttempt } from './webhook-attempt.entity.js';
import { WebhookStat } from './webhook-stat.entity.js';
import { WebhookCounter } from './webhook-counter.entity.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { Workflow } from './workflow.entity.js';
import { WorkflowFolder } from './workflow-folder.entity.js';

/**
 * The entities: the schema of record of every product table (docs/adr/0077-entities-as-the-schema-of-record.md).
 * MikroORM's diff of them against a database migrated from scratch is empty (test/entities.test.ts). The tables of
 * the libraries (Agenda's, the rate limiter's api_budgets, the migrator's) are theirs.
 */
export const ENTITIES = [
  Company,
  User,
  Role,
  Permission,
  PermissionModule,
  RevokedToken,
  TelcoAccount,
  PhoneNumber,
  MessagingCampaign,
  NumberPurchase,
  SpamProtectedNumber,
  Agent,
  AgentTool,
  DecisionEndpoint,
  Call,
  CallTurn,
  Contact,
  Lead,
  LeadAttempt,
  SmsMessage,
  Campaign,
  Pipeline,
  PipelineStage,
  Workflow,
  WorkflowFolder,
  Webhook,
  WebhookCounter,
  WebhookDelivery,
  WebhookAttempt,
  WebhookStat,
  CallPathStat,
  DoNotCallEntry,
  StoredEvent,
  EventLog,
  ListenSession,
  ListenExchange,
  IdempotencyKey,
];
