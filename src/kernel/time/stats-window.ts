import { STATS_BUCKETS, type StatsBucket } from '../attempt-outcome.js';
import { ValidationError } from '../errors.js';
import { Rules } from '../validation.js';
import { parseInstant } from './instant.js';
import { addDays, startOfDay, wallClock } from './zoned.js';

// The window an endpoint's record over time is read in (a webhook's, a decision endpoint's, an agent tool's):
// `from`, `to` and `bucket` as the caller gives them, checked, and widened to whole buckets of the company's zone.

/** How far back each bucket reaches, how long a window it may span, and the window when none is given. */
export const STATS_LIMITS: Record<StatsBucket, { reachMs: number; spanMs: number; defaultMs: number; words: string }> =
  {
    minute: { reachMs: 24 * 3_600_000, spanMs: 24 * 3_600_000, defaultMs: 3_600_000, words: '24 hours' },
    hour: { reachMs: 90 * 86_400_000, spanMs: 30 * 86_400_000, defaultMs: 24 * 3_600_000, words: '30 days' },
    day: { reachMs: 90 * 86_400_000, spanMs: 90 * 86_400_000, defaultMs: 30 * 86_400_000, words: '90 days' },
  };

export interface StatsArgs {
  from?: string | null;
  to?: string | null;
  bucket?: string | null;
}

export interface StatsWindow {
  bucket: StatsBucket;
  from: Date;
  to: Date;
  timeZone: string;
}

/**
 * The window asked for, checked (422 naming the field and what is accepted) and widened to whole buckets of the
 * company's zone: `from` back to its bucket's start, `to` on to the next bucket's (the bucket now is included).
 */
export function statsWindow(args: StatsArgs, timeZone: string, now: Date): StatsWindow {
  const rules = new Rules().oneOf('bucket', args.bucket, STATS_BUCKETS);
  const to = args.to ? parseInstant(args.to) : now;
  const from = args.from ? parseInstant(args.from) : undefined;
  const instant = (field: string, got: string) =>
    `The ${field} field must be an ISO 8601 date-time with a zone, such as 2026-11-24T15:00:00Z (got ${JSON.stringify(got)}).`;
  if (!to) rules.add('to', instant('to', args.to!));
  if (args.from && !from) rules.add('from', instant('from', args.from));
  rules.check();
  const bucket = (args.bucket ?? 'hour') as StatsBucket;
  const limits = STATS_LIMITS[bucket];
  const start = from ?? new Date(to!.getTime() - limits.defaultMs);
  if (to!.getTime() > now.getTime())
    throw ValidationError.field('to', `The to field must not be in the future (got ${args.to}).`);
  if (start.getTime() >= to!.getTime())
    throw ValidationError.field('from', `The from field must be before to (got ${args.from} and ${args.to ?? 'now'}).`);
  if (to!.getTime() - start.getTime() > limits.spanMs)
    throw ValidationError.field(
      'from',
      `A window of ${bucket} buckets spans at most ${limits.words} (got ${args.from ?? 'the default'} to ${args.to ?? 'now'}).`,
    );
  if (now.getTime() - start.getTime() > limits.reachMs)
    throw ValidationError.field(
      'from',
      `${bucket === 'minute' ? 'Minute buckets reach' : 'The record reaches'} back ${bucket === 'minute' ? '24 hours' : '90 days'} (got ${args.from}).`,
    );
  const first = bucketStart(start, bucket, timeZone);
  const last = bucketStart(new Date(to!.getTime() - 1), bucket, timeZone);
  return { bucket, from: first, to: nextBucket(last, bucket, timeZone), timeZone };
}

/** The start of every bucket of the window, oldest first. */
export function bucketStarts(window: StatsWindow): Date[] {
  const starts: Date[] = [];
  for (let at = window.from; at.getTime() < window.to.getTime(); at = nextBucket(at, window.bucket, window.timeZone))
    starts.push(at);
  return starts;
}

/** The start of the bucket holding `instant`, in the zone. */
function bucketStart(instant: Date, bucket: StatsBucket, timeZone: string): Date {
  const wall = wallClock(instant, timeZone);
  if (bucket === 'day') return startOfDay(wall, timeZone);
  const intoMinute = wall.second * 1000 + (instant.getTime() % 1000);
  const into = bucket === 'minute' ? intoMinute : wall.minute * 60_000 + intoMinute;
  return new Date(instant.getTime() - into);
}

/** The start of the bucket after the one starting at `start`. */
function nextBucket(start: Date, bucket: StatsBucket, timeZone: string): Date {
  if (bucket === 'day') return startOfDay(addDays(wallClock(start, timeZone), 1), timeZone);
  return new Date(start.getTime() + (bucket === 'minute' ? 60_000 : 3_600_000));
}
