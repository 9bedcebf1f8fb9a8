import type { AuthChecker } from 'type-graphql';
import type { RequestContext } from '../context.js';
import { ForbiddenError } from '../errors.js';

/** `@Authorized('slug', ...)`: signed in (else 401) and holding every named permission (else 403). */
export const authChecker: AuthChecker<RequestContext> = async ({ context }, permissions) => {
  const viewer = await context.viewer();
  if (permissions.some((slug) => !viewer.permissions.has(slug))) throw new ForbiddenError();
  return true;
};
