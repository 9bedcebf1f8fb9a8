import { PurposeTokens } from '../auth/purpose-tokens.js';
import { TokenSigner } from '../auth/tokens.js';
import { SecretBox } from '../crypto/secret-box.js';
import { TelcoClient } from '../telco/client.js';
import { AgentService } from './agent.service.js';
import { PhoneNumberService } from './phone-number.service.js';
import { TelcoService } from './telco.service.js';
import type { Config } from '../config.js';
import { IdCodec } from '../ids.js';
import type { Logger } from '../observability/logger.js';
import { AuthService } from './auth.service.js';
import { LoginLimiter } from './login-limiter.js';
import { SimulatedReputationSource } from '../spam/reputation.js';
import { DashboardService } from './dashboard.service.js';
import { PipelineService } from './pipeline.service.js';
import { SpamService } from './spam.service.js';
import { RoleService } from './role.service.js';
import { WorkflowService } from './workflow.service.js';

/** The services of one app instance; built once, shared by every request. */
export interface Services {
  config: Config;
  log: Logger;
  ids: IdCodec;
  auth: AuthService;
  roles: RoleService;
  pipelines: PipelineService;
  workflows: WorkflowService;
  spam: SpamService;
  dashboard: DashboardService;
  agents: AgentService;
  phoneNumbers: PhoneNumberService;
  telco: TelcoService;
}

/** `telcoBaseUrl`: the provider (TELCO_BASE_URL) or the in-process simulator. */
export function createServices(config: Config, log: Logger, telcoBaseUrl: string): Services {
  const box = new SecretBox(config.appKey);
  return {
    config,
    log,
    ids: new IdCodec(config.appKey),
    auth: new AuthService(new TokenSigner(config.jwtSecret, config.jwtTtlSeconds), new LoginLimiter(config.loginLimits)),
    roles: new RoleService(),
    pipelines: new PipelineService(),
    workflows: new WorkflowService(),
    spam: new SpamService(new SimulatedReputationSource()),
    dashboard: new DashboardService(),
    agents: new AgentService(),
    phoneNumbers: new PhoneNumberService(),
    telco: new TelcoService(new TelcoClient(telcoBaseUrl, config.telcoTimeoutMs), box, new PurposeTokens(config.jwtSecret), config.publicUrl),
  };
}
