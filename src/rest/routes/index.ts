import type { Route } from '../route.js';
import { authRoutes } from './auth.routes.js';
import { roleRoutes } from './role.routes.js';

/** The route table: every /api route, one row each. */
export const routeTable: Route[] = [...authRoutes, ...roleRoutes];
