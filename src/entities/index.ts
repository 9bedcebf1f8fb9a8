import { Agent } from './agent.entity.js';
import { Campaign } from './campaign.entity.js';
import { Company } from './company.entity.js';
import { Permission } from './permission.entity.js';
import { PermissionModule } from './permission-module.entity.js';
import { Pipeline } from './pipeline.entity.js';
import { PipelineStage } from './pipeline-stage.entity.js';
import { RevokedToken } from './revoked-token.entity.js';
import { Role } from './role.entity.js';
import { User } from './user.entity.js';

/**
 * The entities: the schema of record of the tables they name (docs/adr/0077-entities-as-the-schema-of-record.md).
 * MikroORM's diff of them against a database migrated from scratch is empty (test/entities.test.ts).
 */
export const ENTITIES = [
  Company,
  User,
  Role,
  Permission,
  PermissionModule,
  RevokedToken,
  Agent,
  Pipeline,
  PipelineStage,
  Campaign,
];
