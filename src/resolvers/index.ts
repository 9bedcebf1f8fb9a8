import { AgentResolver } from './agent.resolver.js';
import { AuthResolver } from './auth.resolver.js';
import { DashboardResolver } from './dashboard.resolver.js';
import { PhoneNumberResolver } from './phone-number.resolver.js';
import { PipelineResolver } from './pipeline.resolver.js';
import { RoleResolver } from './role.resolver.js';
import { SpamResolver } from './spam.resolver.js';
import { WorkflowResolver } from './workflow.resolver.js';

export const resolvers = [AuthResolver, RoleResolver, PipelineResolver, WorkflowResolver, SpamResolver, DashboardResolver, PhoneNumberResolver, AgentResolver] as const;
