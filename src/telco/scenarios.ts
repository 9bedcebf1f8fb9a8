import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADER, telcoSignature } from './signature.js';

// The simulator's side of the provider callbacks: scenarios played against a
// running service over real HTTP, each callback signed as the provider signs
// it. `npm run simulate` plays them from a terminal; the tests play the same.

export interface ScenarioOptions {
  /** The service, e.g. http://localhost:3000 */
  url: string;
  accountSid: string;
  authToken: string;
  /** The company's own number on the call. */
  number: string;
  /** The other party. */
  contact?: string;
  /** Pause between callbacks, as a real call has. */
  delayMs?: number;
  /** With inbound-call and outbound-call: the call books an appointment. */
  book?: boolean;
  log?: (line: string) => void;
}

type Step = Record<string, string>;

export const SCENARIOS: Record<string, { description: string; steps: (o: ScenarioOptions) => Step[] }> = {
  'inbound-call': {
    description: 'A caller reaches the AI agent: initiated, ringing, in-progress, completed with transcript, sentiment and (--book) an appointment',
    steps: (o) => [
      { CallStatus: 'initiated' },
      { CallStatus: 'ringing' },
      { CallStatus: 'in-progress' },
      { CallStatus: 'completed', CallDuration: '184', RecordingUrl: 'https://recordings.example/demo.mp3', ...analysis(o) },
    ],
  },
  'outbound-call': {
    description: 'The AI agent calls out: initiated, ringing, in-progress, completed with its analysis',
    steps: (o) => [
      { CallStatus: 'initiated', Direction: 'outbound-api' },
      { CallStatus: 'ringing', Direction: 'outbound-api' },
      { CallStatus: 'in-progress', Direction: 'outbound-api' },
      { CallStatus: 'completed', Direction: 'outbound-api', CallDuration: '95', ...analysis(o) },
    ],
  },
  'missed-call': {
    description: 'Nobody answers: initiated, ringing, no-answer',
    steps: (): Step[] => [{ CallStatus: 'initiated' }, { CallStatus: 'ringing' }, { CallStatus: 'no-answer', CallDuration: '0' }],
  },
  transfer: {
    description: 'The AI agent hands the caller to a person: in-progress, transferred, completed',
    steps: (): Step[] => [
      { CallStatus: 'initiated' },
      { CallStatus: 'in-progress' },
      { CallStatus: 'in-progress', TransferredTo: '+12125550142' },
      { CallStatus: 'completed', CallDuration: '240', Disposition: 'Transferred to staff', Sentiment: 'neutral' },
    ],
  },
};

function analysis(o: ScenarioOptions): Step {
  const booked: Step = o.book ? { Disposition: 'Appointment booked', Tags: 'appointment', AppointmentAt: new Date(Date.now() + 2 * 86_400_000).toISOString() } : { Disposition: 'Information given', Tags: 'question' };
  return { Transcription: 'Agent: Hello, this is your assistant. How can I help? Caller: I would like to come in next week.', Sentiment: 'positive', ...booked };
}

/** Plays a scenario; resolves with the call's CallSid. Throws when the service refuses a callback. */
export async function playScenario(name: string, o: ScenarioOptions): Promise<string> {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`Unknown scenario "${name}": ${Object.keys(SCENARIOS).join(', ')}`);
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const contact = o.contact ?? '+14155550123';
  const endpoint = `${o.url.replace(/\/$/, '')}/api/telco/voice/status`;
  for (const step of scenario.steps(o)) {
    const outbound = step.Direction?.startsWith('outbound');
    const params: Step = { AccountSid: o.accountSid, CallSid: callSid, From: outbound ? o.number : contact, To: outbound ? contact : o.number, Direction: 'inbound', ...step };
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', [SIGNATURE_HEADER]: telcoSignature(endpoint, params, o.authToken) },
      body: new URLSearchParams(params).toString(),
    });
    o.log?.(`${params.CallStatus}${params.TransferredTo ? ` (transferred to ${params.TransferredTo})` : ''}: ${response.status}`);
    if (response.status !== 204) throw new Error(`${endpoint} answered ${response.status}: ${await response.text()}`);
    if (o.delayMs) await new Promise((resolve) => setTimeout(resolve, o.delayMs));
  }
  return callSid;
}
