import { GraphQLDateTimeISO } from 'graphql-scalars';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type ContainerType } from 'type-graphql';
import { authChecker, withUnitsOfWork } from './operations.js';
import { AgentResolver } from '../resolvers/agent.resolver.js';
import { SmsResolver } from '../resolvers/sms.resolver.js';
import { ContactResolver } from '../resolvers/contact.resolver.js';
import { CampaignResolver } from '../resolvers/campaign.resolver.js';
import { AuthResolver } from '../resolvers/auth.resolver.js';
import { DashboardResolver } from '../resolvers/dashboard.resolver.js';
import { PhoneNumberResolver } from '../resolvers/phone-number.resolver.js';
import { PipelineResolver } from '../resolvers/pipeline.resolver.js';
import { RoleResolver } from '../resolvers/role.resolver.js';
import { SpamResolver } from '../resolvers/spam.resolver.js';
import { WebhookResolver } from '../resolvers/webhook.resolver.js';
import { WebhookStatsResolver } from '../resolvers/webhook-stats.resolver.js';
import { CallPathStatsResolver } from '../resolvers/call-path-stats.resolver.js';
import { DoNotCallResolver } from '../resolvers/do-not-call.resolver.js';
import { LeadImportResolver } from '../resolvers/lead-import.resolver.js';
import { CampaignProgressResolver } from '../resolvers/campaign-progress.resolver.js';
import { DecisionResolver } from '../resolvers/decision.resolver.js';
import { AgentToolResolver } from '../resolvers/tool.resolver.js';
import { EventResolver } from '../resolvers/event.resolver.js';
import { WorkflowResolver } from '../resolvers/workflow.resolver.js';
import { attachLiveEvents, LiveEventResolver } from '../resolvers/live.resolver.js';
import { LIVE_EVENT_TYPES } from '../resolvers/live-event.types.js';
import { attachTranscripts, CallTranscriptResolver } from '../resolvers/call-transcript.resolver.js';
import { attachListen, ListenResolver } from '../resolvers/listen.resolver.js';
import { CallFieldsResolver } from '../resolvers/call-fields.resolver.js';
import { CallAnalysisResolver } from '../resolvers/call-analysis.resolver.js';
import type { Services } from '../composition.js';
import { COST_RULE, GRAPHQL_LIMITS } from './limits.js';

const resolvers = [
  AuthResolver,
  RoleResolver,
  PipelineResolver,
  WorkflowResolver,
  SpamResolver,
  DashboardResolver,
  PhoneNumberResolver,
  AgentResolver,
  WebhookResolver,
  WebhookStatsResolver,
  CallPathStatsResolver,
  DoNotCallResolver,
  LeadImportResolver,
  CampaignProgressResolver,
  EventResolver,
  SmsResolver,
  ContactResolver,
  CampaignResolver,
  LiveEventResolver,
  CallTranscriptResolver,
  CallAnalysisResolver,
  ListenResolver,
  CallFieldsResolver,
  DecisionResolver,
  AgentToolResolver,
] as const;

/** Each resolver made once with the services it uses (type-graphql asks this container for them). */
function resolverContainer(s: Services): ContainerType {
  const instances = new Map<Function, object>([
    [AuthResolver, new AuthResolver(s.auth)],
    [RoleResolver, new RoleResolver(s.roles, s.ids)],
    [PipelineResolver, new PipelineResolver(s.pipelines)],
    [WorkflowResolver, new WorkflowResolver(s.workflows)],
    [SpamResolver, new SpamResolver(s.spam)],
    [DashboardResolver, new DashboardResolver(s.dashboard, s.analyses)],
    [PhoneNumberResolver, new PhoneNumberResolver(s.phoneNumbers, s.telco, s.purchases)],
    [AgentResolver, new AgentResolver(s.agents, s.ids)],
    [WebhookResolver, new WebhookResolver(s.webhooks, s.deliveries, s.replays)],
    [WebhookStatsResolver, new WebhookStatsResolver(s.webhookStats)],
    [CallPathStatsResolver, new CallPathStatsResolver(s.callPathStats)],
    [DoNotCallResolver, new DoNotCallResolver(s.doNotCall)],
    [EventResolver, new EventResolver(s.eventFeed)],
    [SmsResolver, new SmsResolver(s.sms)],
    [ContactResolver, new ContactResolver(s.contacts)],
    [CampaignResolver, new CampaignResolver(s.campaigns)],
    [LeadImportResolver, new LeadImportResolver(s.leadImports)],
    [CampaignProgressResolver, new CampaignProgressResolver(s.campaigns)],
    [LiveEventResolver, new LiveEventResolver()],
    [CallTranscriptResolver, new CallTranscriptResolver(s.transcripts)],
    [CallAnalysisResolver, new CallAnalysisResolver(s.analyses)],
    [ListenResolver, new ListenResolver(s.listen)],
    [CallFieldsResolver, new CallFieldsResolver(s.dashboard)],
    [DecisionResolver, new DecisionResolver(s.decisionEndpoints)],
    [AgentToolResolver, new AgentToolResolver(s.agentTools)],
  ]);
  // Checked once here, so that a request's lookup is the map's own.
  for (const resolver of resolvers)
    if (!instances.has(resolver)) throw new Error(`No instance for resolver ${resolver.name}`);
  return { get: instances.get.bind(instances) };
}

/** The schema; with `services`, resolvers are wired and every root field runs in its own unit of work. */
export async function createSchema(services?: Services): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers,
    // The typed live events are reached through the LiveEvent interface only.
    orphanedTypes: LIVE_EVENT_TYPES,
    authChecker,
    authMode: 'error',
    scalarsMap: [{ type: Date, scalar: GraphQLDateTimeISO }],
    validate: false,
    // Every subscription brings its own subscribe function (live events); topics are not used.
    pubSub: {
      publish: () => undefined,
      subscribe: () => {
        throw new Error('Subscriptions here subscribe through their own function.');
      },
    },
    ...(services ? { container: resolverContainer(services) } : {}),
  });
  schema.description =
    `Switchboard: calling and messaging with AI voice agents. Limits: depth ${GRAPHQL_LIMITS.depth}, ` +
    `${GRAPHQL_LIMITS.aliasesPerField} aliases of one field, batches of ${GRAPHQL_LIMITS.batch}. Cost: ${COST_RULE}`;
  if (services) {
    withUnitsOfWork(schema);
    attachLiveEvents(schema, services.live);
    attachTranscripts(schema, services.transcripts);
    attachListen(schema, services.listen);
  }
  return schema;
}

/** The text committed as schema.graphql. */
export const schemaText = (schema: GraphQLSchema) => `${printSchema(lexicographicSortSchema(schema))}\n`;
