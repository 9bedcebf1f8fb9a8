import { ValidationError } from '../../kernel/errors.js';
import { Rules } from '../../kernel/validation.js';

// A time window given as `since` (required) and `until` (default now), ISO
// 8601 date-times, at most `maxDays` long: recovering failed deliveries and
// replaying missing events both take one.

export function timeWindow(
  since: string,
  until: string | null | undefined,
  maxDays: number,
  what: string,
): { from: Date; to: Date } {
  const rules = new Rules().required('since', since);
  const from = since ? new Date(since) : undefined;
  const to = until ? new Date(until) : new Date();
  if (since && (!from || Number.isNaN(from.getTime())))
    rules.add('since', 'The since field must be an ISO 8601 date-time.');
  if (until && Number.isNaN(to.getTime())) rules.add('until', 'The until field must be an ISO 8601 date-time.');
  rules.check();
  if (to.getTime() < from!.getTime())
    throw ValidationError.field('until', 'The until field must be a date-time after since.');
  if (to.getTime() - from!.getTime() > maxDays * 86_400_000)
    throw ValidationError.field('since', `The ${what} window must not be longer than ${maxDays} days.`);
  return { from: from!, to };
}
