import { AuthResolver } from './auth.resolver.js';
import { RoleResolver } from './role.resolver.js';

export const resolvers = [AuthResolver, RoleResolver] as const;
