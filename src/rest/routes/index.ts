import type { IngressRoute, Route } from '../route.js';
import { agentRoutes } from './agent.routes.js';
import { agentToolRoutes } from './agent-tool.routes.js';
import { authRoutes } from './auth.routes.js';
import { dashboardRoutes } from './dashboard.routes.js';
import { decisionRoutes } from './decision.routes.js';
import { eventRoutes } from './event.routes.js';
import { phoneNumberRoutes } from './phone-number.routes.js';
import { pipelineRoutes } from './pipeline.routes.js';
import { roleRoutes } from './role.routes.js';
import { campaignRoutes } from './campaign.routes.js';
import { contactRoutes } from './contact.routes.js';
import { smsRoutes } from './sms.routes.js';
import { spamRoutes } from './spam.routes.js';
import { telcoCallbackRoutes } from './telco-callback.routes.js';
import { webhookRoutes } from './webhook.routes.js';
import { webhookDeliveryRoutes } from './webhook-delivery.routes.js';
import { webhookStatsRoutes } from './webhook-stats.routes.js';
import { callPathStatsRoutes } from './call-path-stats.routes.js';
import { doNotCallRoutes } from './do-not-call.routes.js';
import { workflowRoutes } from './workflow.routes.js';

/** The route table: every /api route, one row each. */
export const routeTable: Route[] = [
  ...authRoutes,
  ...roleRoutes,
  ...pipelineRoutes,
  ...workflowRoutes,
  ...spamRoutes,
  ...dashboardRoutes,
  ...phoneNumberRoutes,
  ...agentRoutes,
  ...agentToolRoutes,
  ...contactRoutes,
  ...campaignRoutes,
  ...smsRoutes,
  ...webhookRoutes,
  ...webhookDeliveryRoutes,
  ...webhookStatsRoutes,
  ...callPathStatsRoutes,
  ...doNotCallRoutes,
  ...eventRoutes,
  ...decisionRoutes,
];

/** The rows of the other kind: provider callbacks (form-encoded, signed, no Bearer token). */
export const ingressTable: IngressRoute[] = [...telcoCallbackRoutes];
