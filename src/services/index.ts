import { PurposeTokens } from '../auth/purpose-tokens.js';
import { TokenSigner } from '../auth/tokens.js';
import { ViewerCache } from '../auth/viewer-cache.js';
import type { Config } from '../config.js';
import { ContextFactory, type Infrastructure } from '../context.js';
import { SecretBox } from '../crypto/secret-box.js';
import { IdCodec } from '../ids.js';
import type { Logger } from '../observability/logger.js';
import { SimulatedReputationSource } from '../spam/reputation.js';
import { TelcoClient } from '../telco/client.js';
import { AgentService } from './agent.service.js';
import { AuthService } from './auth.service.js';
import { DashboardService } from './dashboard.service.js';
import { LoginLimiter } from './login-limiter.js';
import { PhoneNumberService } from './phone-number.service.js';
import { PipelineService } from './pipeline.service.js';
import { RateLimiter } from './rate-limiter.js';
import { RoleService } from './role.service.js';
import { SpamService } from './spam.service.js';
import { TelcoService } from './telco.service.js';
import { CallService } from './call.service.js';
import { SmsService } from './sms.service.js';
import { ContactService } from './contact.service.js';
import { LiveEvents } from '../events/live.js';
import { CampaignService } from './campaign.service.js';
import { WorkflowService } from './workflow.service.js';
import type { Metrics } from '../observability/metrics.js';
import { WebhookDeliverer } from '../webhooks/deliverer.js';
import { WebhookOutbox } from '../webhooks/outbox.js';
import { DeliveryScheduler } from '../webhooks/scheduler.js';
import { WebhookService } from '../webhooks/webhook.service.js';

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
  webhooks: WebhookService;
  calls: CallService;
  contacts: ContactService;
  campaigns: CampaignService;
  sms: SmsService;
  deliverer: WebhookDeliverer;
  scheduler: DeliveryScheduler;
  live: LiveEvents;
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
  const limiter = new RateLimiter();
  const auth = new AuthService(new TokenSigner(config.jwtSecret, config.jwtTtlSeconds), new LoginLimiter(limiter, config.loginLimits), new ViewerCache(config.viewerCacheMs));
  const scheduler = new DeliveryScheduler();
  const outbox = new WebhookOutbox();
  const live = new LiveEvents();
  const contexts = new ContextFactory({ ...infra, source: auth, sinks: [outbox, live] });
  const deliverer = new WebhookDeliverer(contexts, box, scheduler, {
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    endpointConcurrency: config.webhookEndpointConcurrency,
    endpointConcurrencyMax: config.webhookEndpointConcurrencyMax,
    disableAfterMs: config.webhookDisableAfterMs,
    retentionMs: config.webhookRetentionMs,
    destinations: config.webhookDestinations,
  }, log, metrics);
  const contacts = new ContactService(clock);
  const telco = new TelcoService(new TelcoClient(telcoBaseUrl, config.telcoTimeoutMs), box, ids, new PurposeTokens(config.jwtSecret), limiter, config);
  return {
    config,
    log,
    ids,
    contexts,
    scheduler,
    live,
    deliverer,
    webhooks: new WebhookService(ids, box, outbox, { destinations: config.webhookDestinations, rotationGraceMs: config.webhookRotationGraceMs, startConcurrency: config.webhookEndpointConcurrency }),
    auth,
    roles: new RoleService(ids, auth.viewers),
    pipelines: new PipelineService(ids),
    workflows: new WorkflowService(ids),
    spam: new SpamService(ids, new SimulatedReputationSource()),
    dashboard: new DashboardService(ids, clock),
    agents: new AgentService(ids),
    contacts,
    campaigns: new CampaignService(ids, contacts, clock),
    calls: new CallService(contacts, clock),
    phoneNumbers: new PhoneNumberService(ids),
    telco,
    sms: new SmsService(telco, contacts, clock),
  };
}
