import { Company } from './company.entity.js';
import { LoginAttempt } from './login-attempt.entity.js';
import { Module } from './module.entity.js';
import { Permission } from './permission.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';
import { Pipeline } from './pipeline.entity.js';
import { RevokedToken } from './revoked-token.entity.js';
import { Role } from './role.entity.js';
import { User } from './user.entity.js';
import { WorkflowFolder } from './workflow-folder.entity.js';
import { Workflow, WorkflowStatus, type TriggerConfig } from './workflow.entity.js';

export { Company, LoginAttempt, Module, Permission, Pipeline, PipelineStage, RevokedToken, Role, User, Workflow, WorkflowFolder, WorkflowStatus };
export type { TriggerConfig };

export const entities = [Company, LoginAttempt, Module, Permission, Pipeline, PipelineStage, RevokedToken, Role, User, Workflow, WorkflowFolder];
