import { Agent } from './agent.entity.js';
import { Call } from './call.entity.js';
import { Company } from './company.entity.js';
import { LoginAttempt } from './login-attempt.entity.js';
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

export { Agent, Call, Company, SpamNumberType, SpamProtectedNumber, SpamStatus, LoginAttempt, Module, Permission, Pipeline, PipelineStage, RevokedToken, Role, User, Workflow, WorkflowFolder, WorkflowStatus };
export type { TriggerConfig };

export const entities = [Agent, Call, Company, SpamProtectedNumber, LoginAttempt, Module, Permission, Pipeline, PipelineStage, RevokedToken, Role, User, Workflow, WorkflowFolder];
