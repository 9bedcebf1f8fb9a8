// The words of a call, as the provider and the AI dashboard use them: one
// list each, read by the callback's route row, the call service and the agent
// performance figures.

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
