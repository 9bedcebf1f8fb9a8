import type { AuthChecker } from 'type-graphql';
import type { RequestContext } from '../context.js';

/** `@Authorized('slug', ...)`: signed in (else 401) and holding every named permission (else 403). */
export const authChecker: AuthChecker<RequestContext> = async ({ context }, permissions) => {
  await context.requirePermissions(permissions as string[]);
  return true;
};
