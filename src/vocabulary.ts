// The closed sets of the product, one list each: a call's statuses and
// sentiments (the provider's callbacks, the call service, the agent figures),
// a sent message's statuses, and a webhook delivery's statuses (the delivery
// log, its route row, and the web page through a generated module).

/** How far along each provider status is; the terminal ones are all 4. */
export const CALL_PROGRESS: Readonly<Record<string, number>> = {
  queued: 1,
  initiated: 1,
  ringing: 2,
  'in-progress': 3,
  completed: 4,
  busy: 4,
  'no-answer': 4,
  failed: 4,
  canceled: 4,
};

export const CALL_STATUSES = Object.keys(CALL_PROGRESS);
/** Statuses a call ends in. */
export const TERMINAL_CALL_STATUSES = CALL_STATUSES.filter((status) => CALL_PROGRESS[status] === 4);
export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;

/** How far along each provider status of a sent message is; the last word (delivered, failed, undelivered) is 3. */
export const SMS_PROGRESS: Readonly<Record<string, number>> = { accepted: 1, queued: 1, sending: 1, sent: 2, delivered: 3, failed: 3, undelivered: 3 };
export const SMS_STATUSES = Object.keys(SMS_PROGRESS);

/** A webhook delivery's statuses: pending until it succeeds, fails after its last attempt, or is cancelled. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
