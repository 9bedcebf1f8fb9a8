import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADER, telcoSignature } from './signature.js';

// The simulator's outbound calls (docs/dialer.md, The simulator): a call placed through its Calls API plays out by
// the number dialed, its last digits deciding what happens, and reports its progress to the call's StatusCallback,
// signed as the provider signs. Its durations are scaled (`timeScale`), so a campaign of thousands of calls runs in
// minutes. The outcomes:
//   ...99  the provider refuses the dial (400, code 13224: the number cannot be dialed)
//   ...6   no answer: it rings for the call's Timeout (default 30 s), then no-answer
//   ...7   busy, after 2 s
//   ...8   a machine answers (AnsweredBy machine_end_beep): in progress after 5 s, completed 20 s later
//   ...9   failed, after 1 s
//   other  a person answers (AnsweredBy human): in progress after 5 s of ringing, completed 60 s later

export type SimOutcome = 'refused' | 'no-answer' | 'busy' | 'machine' | 'failed' | 'human';

/** What a dialed number does, by its last digits. */
export function simOutcome(to: string): SimOutcome {
  if (to.endsWith('99')) return 'refused';
  return ({ '6': 'no-answer', '7': 'busy', '8': 'machine', '9': 'failed' } as const)[to.slice(-1)] ?? 'human';
}

export interface SimCall {
  sid: string;
  account: string;
  from: string;
  to: string;
  statusCallback: string;
  machineDetection: boolean;
  /** Its instruction once answered (the Twiml parameter): the agent and its variables. */
  twiml: string;
  /** Seconds it rings before no-answer. */
  timeout: number;
  placedAt: number;
  /** When it ended (ms since the epoch), once it has. */
  endedAt?: number;
  status: string;
  /** Who answered (machine detection) and the call's seconds, as its callbacks told them. */
  answeredBy?: string;
  duration?: string;
}

type Step = [afterSeconds: number, params: Record<string, string>];

function steps(call: SimCall): Step[] {
  const machine: Record<string, string> = call.machineDetection ? { AnsweredBy: 'machine_end_beep' } : {};
  const human: Record<string, string> = call.machineDetection ? { AnsweredBy: 'human' } : {};
  switch (simOutcome(call.to)) {
    case 'no-answer':
      return [
        [1, { CallStatus: 'ringing' }],
        [call.timeout, { CallStatus: 'no-answer', CallDuration: '0' }],
      ];
    case 'busy':
      return [[2, { CallStatus: 'busy', CallDuration: '0' }]];
    case 'failed':
      return [[1, { CallStatus: 'failed', CallDuration: '0' }]];
    case 'machine':
      return [
        [1, { CallStatus: 'ringing' }],
        [4, { CallStatus: 'in-progress', ...machine }],
        [20, { CallStatus: 'completed', CallDuration: '20', ...machine }],
      ];
    default:
      return [
        [1, { CallStatus: 'ringing' }],
        [4, { CallStatus: 'in-progress', ...human }],
        [60, { CallStatus: 'completed', CallDuration: '60', ...human }],
      ];
  }
}

export class OutboundCalls {
  readonly calls: SimCall[] = [];
  /** A second of a call passes in timeScale seconds. */
  timeScale = 1;
  /** Calls placed and not yet ended, now and at most. */
  live = 0;
  maxLive = 0;

  place(account: string, authToken: string, fields: Omit<SimCall, 'sid' | 'account' | 'placedAt' | 'status'>): SimCall {
    const call: SimCall = {
      ...fields,
      sid: `CA${randomBytes(16).toString('hex')}`,
      account,
      placedAt: Date.now(),
      status: 'queued',
    };
    this.calls.push(call);
    this.live++;
    this.maxLive = Math.max(this.maxLive, this.live);
    void this.play(call, authToken);
    return call;
  }

  private async play(call: SimCall, authToken: string): Promise<void> {
    const base = {
      AccountSid: call.account,
      CallSid: call.sid,
      From: call.from,
      To: call.to,
      Direction: 'outbound-api',
    };
    const report = async (params: Record<string, string>) => {
      call.status = params.CallStatus;
      call.answeredBy = params.AnsweredBy ?? call.answeredBy;
      call.duration = params.CallDuration ?? call.duration;
      if (!call.statusCallback) return;
      const all = { ...base, ...params };
      // A callback the service does not take is the provider's to retry; the simulator tries three times.
      for (let i = 0; i < 3; i++) {
        try {
          const response = await fetch(call.statusCallback, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              [SIGNATURE_HEADER]: telcoSignature(call.statusCallback, all, authToken),
            },
            body: new URLSearchParams(all).toString(),
          });
          await response.text();
          if (response.ok) return;
        } catch {
          // the service is away: try again
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    try {
      await report({ CallStatus: 'initiated' });
      for (const [after, params] of steps(call)) {
        await new Promise((resolve) => setTimeout(resolve, after * 1000 * this.timeScale));
        if (['no-answer', 'busy', 'failed', 'completed'].includes(params.CallStatus)) {
          call.endedAt = Date.now();
          this.live--;
        }
        await report(params);
      }
    } catch {
      // a callback that could not be sent is lost, as the provider's would be
    }
  }
}
