import type { Campaign } from '../entities/campaign.entity.js';
import { BOUNDS } from '../kernel/bounds.js';
import { inWords, label } from '../kernel/messages.js';
import { E164, Rules } from '../kernel/validation.js';
import { DIAL_OUTCOMES, PREDIAL_FALLBACKS } from '../kernel/vocabulary.js';
import type { DialingSettings } from '../repositories/campaign.repository.js';

// How a campaign dials (docs/dialer.md): its settings as the API gives and serves them, each checked against what is
// accepted. Times of day are HH:MM on the API, minutes after midnight in the table.

/** How a campaign dials, as the GraphQL CampaignDialing type serves it. */
export interface DialingRecord {
  concurrency: number;
  fromNumber: string | null;
  /** "HH:MM" */
  hoursStart: string;
  hoursEnd: string;
  callingDays: number[];
  ringSeconds: number;
  maxAttempts: number;
  retryMinutes: number[];
  retryOn: string[];
  /** The decision endpoint asked before each dial; null: none is asked. */
  predialEndpointId: number | null;
  /** `dial` or `skip`, when the endpoint gives no answer in time. */
  predialFallback: string;
}

/** How a campaign dials, as a caller gives it (each field optional: its default otherwise). */
export interface DialingInput {
  concurrency?: number | null;
  fromNumber?: string | null;
  hoursStart?: string | null;
  hoursEnd?: string | null;
  callingDays?: number[] | null;
  ringSeconds?: number | null;
  maxAttempts?: number | null;
  retryMinutes?: number[] | null;
  retryOn?: string[] | null;
  predialEndpointId?: string | null;
  predialFallback?: string | null;
}

const clockOf = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const HH_MM = /^([01]\d|2[0-4]):([0-5]\d)$/;

/** The campaign's settings as the API serves them. */
export function dialingRecord(
  campaign: Pick<Campaign, Exclude<keyof DialingSettings, 'predialEndpoint'>> & {
    predialEndpoint: { id: number } | null;
  },
): DialingRecord {
  return {
    concurrency: campaign.concurrency,
    fromNumber: campaign.fromNumber,
    hoursStart: clockOf(campaign.hoursStart),
    hoursEnd: clockOf(campaign.hoursEnd),
    callingDays: campaign.callingDays,
    ringSeconds: campaign.ringSeconds,
    maxAttempts: campaign.maxAttempts,
    retryMinutes: campaign.retryMinutes,
    retryOn: campaign.retryOn,
    predialEndpointId: campaign.predialEndpoint?.id ?? null,
    predialFallback: campaign.predialFallback,
  };
}

/**
 * The dialing settings given, checked (each bad one named with its value and what is accepted); the pre-dial endpoint
 * is left to the caller, which finds it among the company's.
 */
export function checkedDialing(
  input: DialingInput | null | undefined,
): Partial<Omit<DialingSettings, 'predialEndpoint'>> {
  const rules = new Rules();
  const out: Partial<Omit<DialingSettings, 'predialEndpoint'>> = {};
  if (!input) return out;
  const range = (field: keyof DialingInput, value: number | null | undefined, min: number, max: number) => {
    if (value === null || value === undefined) return undefined;
    if (!Number.isInteger(value) || value < min || value > max) {
      rules.add(`dialing.${field}`, `The dialing ${label(field)} must be from ${min} to ${max} (got ${value}).`);
      return undefined;
    }
    return value;
  };
  const { concurrency, ringSeconds, maxAttempts, callingDays, retryMinutes } = BOUNDS.campaign;
  out.concurrency = range('concurrency', input.concurrency, concurrency.minimum, concurrency.maximum);
  out.ringSeconds = range('ringSeconds', input.ringSeconds, ringSeconds.minimum, ringSeconds.maximum);
  out.maxAttempts = range('maxAttempts', input.maxAttempts, maxAttempts.minimum, maxAttempts.maximum);
  for (const field of ['hoursStart', 'hoursEnd'] as const) {
    const value = input[field];
    if (value === null || value === undefined) continue;
    const match = HH_MM.exec(value);
    const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
    if (!match || minutes > 1440)
      rules.add(
        `dialing.${field}`,
        `The dialing ${label(field)} must be a time of day such as 08:00 (got "${value}").`,
      );
    else out[field] = minutes;
  }
  if ((out.hoursStart ?? 480) >= (out.hoursEnd ?? 1260))
    rules.add('dialing.hoursEnd', 'The dialing hours end must be after their start.');
  if (input.callingDays) {
    const days = [...new Set(input.callingDays)].sort();
    const { minimum, maximum } = callingDays.items;
    const given = input.callingDays.length;
    if (
      given === 0 ||
      given > callingDays.maxItems ||
      days.some((d) => !Number.isInteger(d) || d < minimum || d > maximum)
    )
      rules.add(
        'dialing.callingDays',
        `The dialing calling days are 1 (Monday) to 7 (Sunday), at least one (got ${JSON.stringify(input.callingDays)}).`,
      );
    else out.callingDays = days;
  }
  if (input.retryMinutes) {
    if (
      input.retryMinutes.length === 0 ||
      input.retryMinutes.length > retryMinutes.maxItems ||
      input.retryMinutes.some(
        (m) => !Number.isInteger(m) || m < retryMinutes.items.minimum || m > retryMinutes.items.maximum,
      )
    )
      rules.add(
        'dialing.retryMinutes',
        `The dialing retry minutes are 1 to 10 gaps of 1 to 10080 minutes (got ${JSON.stringify(input.retryMinutes)}).`,
      );
    else out.retryMinutes = input.retryMinutes;
  }
  if (input.retryOn) {
    const bad = input.retryOn.filter((o) => !RETRIED.includes(o));
    if (bad.length > 0)
      rules.add(
        'dialing.retryOn',
        `The dialing retry on field does not accept ${JSON.stringify(bad[0])}; it accepts ${inWords(RETRIED)}.`,
      );
    else out.retryOn = [...new Set(input.retryOn)];
  }
  if (input.fromNumber !== null && input.fromNumber !== undefined) {
    if (!E164.test(input.fromNumber))
      rules.add(
        'dialing.fromNumber',
        `The dialing from number must be an E.164 number, such as +14155550100 (got ${JSON.stringify(input.fromNumber)}).`,
      );
    else out.fromNumber = input.fromNumber;
  }
  rules.oneOf('dialing.predialFallback', input.predialFallback ?? undefined, PREDIAL_FALLBACKS);
  if (input.predialFallback) out.predialFallback = input.predialFallback;
  rules.check();
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** The outcomes a campaign may retry: a call's, but an answered one. */
const RETRIED: readonly string[] = DIAL_OUTCOMES.filter((o) => o !== 'answered' && o !== 'skipped');
