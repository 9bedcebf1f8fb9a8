import { Agent } from './agent.entity.js';
import { Call } from './call.entity.js';
import { Company } from './company.entity.js';

export { Agent, Call, Company };

export const entities = [Agent, Call, Company];
