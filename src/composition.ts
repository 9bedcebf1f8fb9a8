import type { RequestContext } from './context/request-context.js';
import type { CallStatusChanged } from './telco/callback-commands.js';
import { PurposeTokens } from './auth/purpose-tokens.js';
import { TokenSigner } from './auth/tokens.js';
import { ViewerCache } from './auth/viewer-cache.js';
import type { Config } from './config/config.js';
import { ContextFactory, type Infrastructure } from './context/request-context.js';
import { SecretBox } from './crypto/secret-box.js';
import { IdCodec } from './kernel/ids.js';
import type { Logger } from './observability/logger.js';
import { SimulatedReputationSource } from './spam/reputation.js';
import { TelcoCallbacks } from './telco/callbacks.js';
import { TelcoClient } from './telco/client.js';
import { AgentService } from './services/agent.service.js';
import { AuthService } from './services/auth.service.js';
import { DashboardService } from './services/dashboard.service.js';
import { LoginLimiter } from './services/login-limiter.js';
import { PhoneNumberService } from './services/phone-number.service.js';
import { PipelineService } from './services/pipeline.service.js';
import { RateLimiter } from './services/rate-limiter.js';
import { ListenSessions } from './webhooks/tools/listen.js';
import { ApiLimits, SharedBudgets } from './limits/budgets.js';
import { RoleService } from './services/role.service.js';
import { SpamService } from './services/spam.service.js';
import { TelcoService } from './services/telco.service.js';
import { NumberPurchaseService } from './services/number-purchase.service.js';
import { CallService } from './services/call.service.js';
import { CallAnalysisService } from './services/call-analysis.service.js';
import { CallTranscriptService } from './services/call-transcript.service.js';
import { SmsService } from './services/sms.service.js';
import { DoNotCallService } from './services/do-not-call.service.js';
import { LeadImportService } from './services/lead-import.service.js';
import { DialerService } from './services/dialer.service.js';
import { ContactService } from './services/contact.service.js';
import { LiveEvents } from './services/live-events.js';
import { CampaignService } from './services/campaign.service.js';
import { WorkflowService } from './services/workflow.service.js';
import type { Metrics } from './observability/metrics.js';
import { WebhookDeliverer } from './webhooks/engine/deliverer.js';
import { WebhookOutbox } from './webhooks/engine/outbox.js';
import { EventFeedService } from './webhooks/tools/event-feed.service.js';
import { DeliveryScheduler } from './webhooks/engine/scheduler.js';
import { WebhookService } from './webhooks/config/webhook.service.js';
import { DeliveryService } from './webhooks/tools/delivery.service.js';
import { WebhookStatsService } from './webhooks/tools/stats.service.js';
import { ReplayService } from './webhooks/tools/replay.service.js';
import { DecisionCaller } from './decisions/caller.js';
import { CallPathRecord } from './decisions/call-path-record.js';
import { PredialDecider } from './decisions/predial.js';
import { ConfigCache } from './db/config-cache.js';
import { ContactDirectory } from './db/contact-directory.js';
import { RecentDecisions } from './db/recent-decisions.js';
import { QuietMoments } from './services/calls/quiet-moments.js';
import { callReads } from './repositories/call-reads.repository.js';
import { CallPathStatsService } from './decisions/call-path-stats.service.js';
import { EndpointAuth } from './webhooks/engine/endpoint-auth.js';
import { type DecidingSnapshot, DecisionEndpointService } from './decisions/decision.service.js';
import { InboundCallService } from './services/inbound-call.service.js';
import { AgentToolService } from './decisions/tool.service.js';
import { ToolCallService } from './services/tool-call.service.js';

// The composition root: every service, the webhook module and the event seam
// (the sinks a recorded event reaches) are built here, once per app instance,
// with what each depends on. Nothing under services/ knows the webhooks; the
// webhook outbox reaches the services only as one of the context's sinks.

/**
 * The services of one app instance, built once with what each depends on.
 * Resolvers and jobs receive the ones they use; the context never carries them.
 */
export interface Services {
  config: Config;
  log: Logger;
  ids: IdCodec;
  contexts: ContextFactory;
  auth: AuthService;
  roles: RoleService;
  pipelines: PipelineService;
  workflows: WorkflowService;
  spam: SpamService;
  dashboard: DashboardService;
  agents: AgentService;
  phoneNumbers: PhoneNumberService;
  telco: TelcoService;
  /** The provider's callbacks, adapted: signature, account, typed commands. */
  callbacks: TelcoCallbacks;
  purchases: NumberPurchaseService;
  webhooks: WebhookService;
  deliveries: DeliveryService;
  webhookStats: WebhookStatsService;
  /** The company's do-not-call list. */
  doNotCall: DoNotCallService;
  leadImports: LeadImportService;
  dialer: DialerService;
  /** The call path's record over time: counted by the caller, added to the database every few seconds. */
  callPathRecord: CallPathRecord;
  reportCallStatus: (ctx: RequestContext, report: CallStatusChanged) => Promise<void>;
  configCache: ConfigCache;
  callPathStats: CallPathStatsService;
  replays: ReplayService;
  /** GET /api/events: the company's events for consumers who pull. */
  eventFeed: EventFeedService;
  calls: CallService;
  /** Decision endpoints: the URL asked how to route an inbound call (decisions/). */
  decisionEndpoints: DecisionEndpointService;
  inboundCalls: InboundCallService;
  /** Tools for AI agents, run by the company's endpoints during calls (decisions/). */
  agentTools: AgentToolService;
  toolCalls: ToolCallService;
  analyses: CallAnalysisService;
  transcripts: CallTranscriptService;
  contacts: ContactService;
  campaigns: CampaignService;
  sms: SmsService;
  deliverer: WebhookDeliverer;
  scheduler: DeliveryScheduler;
  live: LiveEvents;
  /** npm run listen's sessions (webhooks/tools/listen.ts). */
  listen: ListenSessions;
  /** The API's rate limits, spent by every request of a signed-in caller (REST, /graphql, subscribes). */
  limits: ApiLimits;
}

/** `telcoBaseUrl`: the provider (TELCO_BASE_URL) or the in-process simulator. */
export function createServices(
  config: Config,
  log: Logger,
  metrics: Metrics,
  telcoBaseUrl: string,
  infra: Omit<Infrastructure, 'source' | 'sinks'>,
  clock: () => Date = () => new Date(),
): Services {
  const box = new SecretBox(config.appKey);
  const ids = new IdCodec(config.appKey);
  // One store of fixed windows for every limit: the API's budgets, sign-ins, provider account changes.
  const budgets = new SharedBudgets(infra.autonomous);
  const limiter = new RateLimiter(budgets);
  const auth = new AuthService(
    new TokenSigner(config.jwtSecret, config.jwtTtlSeconds),
    new LoginLimiter(limiter, config.loginLimits),
    new ViewerCache(config.viewerCacheMs),
  );
  const scheduler = new DeliveryScheduler();
  const outbox = new WebhookOutbox((event, webhooks) => metrics.webhookEventsFiltered.inc({ event }, webhooks));
  const live = new LiveEvents();
  const contexts = new ContextFactory({
    ...infra,
    source: auth,
    sinks: [outbox, live],
    poolWait: (lane, seconds) => metrics.dbPoolWait.observe({ pool: lane }, seconds),
  });
  const webhooks = new WebhookService(ids, box, {
    destinations: config.webhookDestinations,
    rotationGraceMs: config.webhookRotationGraceMs,
    startConcurrency: config.webhookEndpointConcurrency,
  });
  const listen = new ListenSessions(webhooks, contexts);
  const deliverer = new WebhookDeliverer(
    contexts,
    box,
    scheduler,
    {
      retryDelaysMs: config.webhookRetryDelaysMs,
      timeoutMs: config.webhookTimeoutMs,
      endpointConcurrency: config.webhookEndpointConcurrency,
      endpointConcurrencyMax: config.webhookEndpointConcurrencyMax,
      settleHoldMs: config.webhookSettleHoldMs,
      disableAfterMs: config.webhookDisableAfterMs,
      retentionMs: config.webhookRetentionMs,
      stats: config.webhookStats,
      destinations: config.webhookDestinations,
    },
    log,
    metrics,
    listen,
  );
  const contacts = new ContactService(clock);
  const calls = new CallService(contacts, clock);
  const analyses = new CallAnalysisService(contacts, ids, clock);
  // One caller for the call path: decision endpoints and tools share its connections, breakers and metrics.
  const callPathRecord = new CallPathRecord(config.callPathStats, log);
  const caller = new DecisionCaller(
    { destinations: config.webhookDestinations, breakerOpenMs: config.decisionBreakerOpenMs },
    metrics,
    new EndpointAuth(box, config.webhookDestinations),
    callPathRecord,
  );
  // The call path's configuration in memory, forgotten on every change (db/config-cache.ts); kept where API processes
  // listen for the changes.
  const configCache = new ConfigCache();
  // The rest of what a decision reads, watched on the same channel (docs/adr/0095-call-facts-in-memory.md).
  const callPathMemory = {
    config: configCache,
    contacts: new ContactDirectory(config.callPathContacts),
    decided: new RecentDecisions((since, limit) =>
      callReads.recentlyDecided(contexts.forMaintenance('calls decided lately').readOnly(), since, limit),
    ),
  };
  // The records of decisions and tool calls wait for a moment when no call is being answered (ADR 0096).
  const quietMoments = new QuietMoments();
  configCache.watch(callPathMemory.contacts);
  configCache.watch(callPathMemory.decided);
  metrics.callPathKept.sizes = () => ({
    configuration: configCache.size,
    contacts: callPathMemory.contacts.size,
    decisions: callPathMemory.decided.size,
  });
  const decisionEndpoints = new DecisionEndpointService(
    ids,
    box,
    caller,
    { destinations: config.webhookDestinations },
    configCache,
  );
  const agentTools = new AgentToolService(ids, box, caller, { destinations: config.webhookDestinations }, configCache);
  const inboundCalls = new InboundCallService(
    contacts,
    {
      endpointFor: (ctx, companyId, called) => decisionEndpoints.endpointFor(ctx, companyId, called),
      decide: (endpoint, call, startedAt) =>
        decisionEndpoints.decideInbound(endpoint as DecidingSnapshot, call, startedAt),
    },
    callPathMemory,
    quietMoments,
    log,
    clock,
  );
  const transcripts = new CallTranscriptService(live, ids, clock);
  const toolCalls = new ToolCallService(
    transcripts,
    (ctx, call, startedAt) => agentTools.call(ctx, call, startedAt),
    quietMoments,
    log,
  );
  const telcoClient = new TelcoClient(telcoBaseUrl, config.telcoTimeoutMs);
  const purposeTokens = new PurposeTokens(config.jwtSecret);
  const telco = new TelcoService(telcoClient, box, purposeTokens, limiter, config, configCache);
  const doNotCall = new DoNotCallService(clock);
  const sms = new SmsService(telco, contacts, doNotCall, clock);
  const campaigns = new CampaignService(ids, contacts, clock);
  const predial = new PredialDecider(box, caller);
  const dialer = new DialerService(
    campaigns,
    contacts,
    (ctx, facts) => predial.decide(ctx, facts),
    config.dialerLeaseMs,
    clock,
  );
  // A call's progress, from its status callback or read at the provider by the dialer's recovery: a campaign's call
  // ends its attempt in the same unit of work (services/dialer.service.ts).
  const reportCallStatus = async (ctx: RequestContext, report: CallStatusChanged) => {
    await calls.callStatusChanged(ctx, report);
    if (report.direction === 'outbound') await dialer.callReported(ctx, report.callSid);
  };
  return {
    config,
    log,
    ids,
    reportCallStatus,
    configCache,
    contexts,
    scheduler,
    live,
    listen,
    limits: new ApiLimits(budgets, config.apiLimits),
    deliverer,
    webhooks,
    deliveries: new DeliveryService(webhooks, outbox),
    webhookStats: new WebhookStatsService(webhooks, clock),
    callPathRecord,
    callPathStats: new CallPathStatsService(decisionEndpoints, agentTools, clock),
    replays: new ReplayService(webhooks, outbox, config.webhookRetentionMs),
    eventFeed: new EventFeedService(config.webhookRetentionMs),
    auth,
    roles: new RoleService(ids, auth.viewers),
    pipelines: new PipelineService(ids),
    workflows: new WorkflowService(ids),
    spam: new SpamService(ids, new SimulatedReputationSource()),
    dashboard: new DashboardService(ids, clock),
    agents: new AgentService(ids),
    contacts,
    campaigns,
    calls,
    decisionEndpoints,
    inboundCalls,
    agentTools,
    toolCalls,
    analyses,
    transcripts,
    phoneNumbers: new PhoneNumberService(ids),
    telco,
    purchases: new NumberPurchaseService(telco, telcoClient, purposeTokens, config),
    sms,
    doNotCall,
    leadImports: new LeadImportService(ids, clock),
    dialer,
    callbacks: new TelcoCallbacks(contexts, {
      account: (ctx, accountSid, number) => telco.callbackAccount(ctx, accountSid, number),
      callStatusChanged: reportCallStatus,
      inboundCall: (ctx, call, startedAt) => inboundCalls.inboundCall(ctx, call, startedAt),
      toolCalled: (ctx, call, startedAt) => toolCalls.toolCalled(ctx, call, startedAt),
      callAnalysisReported: (ctx, { callSid, ...analysis }) => analyses.reported(ctx, callSid, analysis),
      turnReported: (ctx, turn) => transcripts.turnReported(ctx, turn),
      smsStatusChanged: (ctx, report) => sms.statusChanged(ctx, report),
      smsReceived: (ctx, message) => sms.received(ctx, message),
    }),
  };
}
