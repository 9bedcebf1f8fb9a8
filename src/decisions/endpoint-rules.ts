import type { SecretBox } from '../crypto/secret-box.js';
import type { Bound } from '../kernel/bounds.js';
import { UnprocessableError } from '../kernel/errors.js';
import type { Rules } from '../kernel/validation.js';
import { httpUrlProblem, type DestinationPolicy } from '../webhooks/config/destination.js';

// What decision endpoints and tools share of their rules: an http(s) URL
// under the endpoints' address rules, a deadline in its bounds, and the
// signing secret opened for the one who may see it.

/** The url field's problems: required, its length, http or https, an address the policy allows. */
export function checkUrl(rules: Rules, url: string | undefined, bound: Bound, policy: DestinationPolicy): void {
  rules.required('url', url).maxChars('url', url, bound.maxLength!);
  const problem = url && !rules.has('url') ? httpUrlProblem(url, policy) : undefined;
  if (problem) rules.add('url', problem);
}

/** The deadline ms field: a whole number of milliseconds in its bounds. */
export function checkDeadline(rules: Rules, deadline: number, bound: Bound): void {
  if (!Number.isInteger(deadline) || deadline < bound.minimum! || deadline > bound.maximum!)
    rules.add(
      'deadlineMs',
      `The deadline ms field must be a whole number of milliseconds from ${bound.minimum} to ${bound.maximum} (got ${deadline}).`,
    );
}

/** A signing secret as its endpoint's manager sees it; 422 when APP_KEY no longer opens it. */
export function revealSecret(box: SecretBox, sealed: string): string {
  const secret = box.open(sealed);
  if (secret === undefined) throw new UnprocessableError('The secret cannot be read with this APP_KEY.');
  return secret;
}
