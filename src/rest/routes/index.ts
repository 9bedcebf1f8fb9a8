import type { Route } from '../route.js';
import { agentRoutes } from './agent.routes.js';
import { authRoutes } from './auth.routes.js';
import { dashboardRoutes } from './dashboard.routes.js';
import { phoneNumberRoutes } from './phone-number.routes.js';
import { pipelineRoutes } from './pipeline.routes.js';
import { roleRoutes } from './role.routes.js';
import { spamRoutes } from './spam.routes.js';
import { webhookRoutes } from './webhook.routes.js';
import { workflowRoutes } from './workflow.routes.js';

/** The route table: every /api route, one row each. */
export const routeTable: Route[] = [...authRoutes, ...roleRoutes, ...pipelineRoutes, ...workflowRoutes, ...spamRoutes, ...dashboardRoutes, ...phoneNumberRoutes, ...agentRoutes, ...webhookRoutes];
