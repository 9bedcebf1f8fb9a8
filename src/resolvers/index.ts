import { AuthResolver } from './auth.resolver.js';
import { PipelineResolver } from './pipeline.resolver.js';
import { RoleResolver } from './role.resolver.js';
import { WorkflowResolver } from './workflow.resolver.js';

export const resolvers = [AuthResolver, RoleResolver, PipelineResolver, WorkflowResolver] as const;
