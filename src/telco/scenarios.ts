import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADER, telcoSignature } from './signature.js';
import { type Instruction, readInstruction } from './instructions.js';

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
  /** tool-call: the agent's tool to call, and its arguments (JSON). */
  tool?: string;
  toolArguments?: string;
  /** tool-call: what the service answered (the result put into the conversation). */
  onToolResult?: (answer: {
    result: unknown;
    source: string;
    fallback_reason: string | null;
    reason: string | null;
  }) => void;
  /** The instruction the service answered to the inbound call callback (scenarios that ask for one). */
  onInstruction?: (instruction: Instruction) => void;
}

type Step = Record<string, string>;

interface Scenario {
  description: string;
  steps: (o: ScenarioOptions) => Step[];
  /** First asks the service how to route the call (POST /api/telco/voice/inbound), then plays what it said. */
  routed?: (instruction: Instruction, o: ScenarioOptions) => Step[];
}

export const SCENARIOS: Record<string, Scenario> = {
  'inbound-call': {
    description:
      'A caller reaches the company: the service is asked how to route the call (its decision endpoint, else the ' +
      "number's agent); answered: initiated, ringing, in-progress, completed with transcript, sentiment and (--book) " +
      "an appointment, then the agent's post-call analysis; forwarded: transferred to the number; rejected: busy",
    routed: (instruction, o) =>
      instruction.action === 'forward'
        ? [
            { CallStatus: 'ringing' },
            { CallStatus: 'in-progress', TransferredTo: instruction.forwardTo ?? '' },
            { CallStatus: 'completed', CallDuration: '60', Disposition: 'Forwarded' },
          ]
        : instruction.action === 'reject'
          ? [{ CallStatus: 'busy', CallDuration: '0' }]
          : SCENARIOS['inbound-call'].steps(o),
    steps: (o) => [
      { CallStatus: 'initiated' },
      { CallStatus: 'ringing' },
      { CallStatus: 'in-progress' },
      {
        CallStatus: 'completed',
        CallDuration: '184',
        RecordingUrl: 'https://recordings.example/demo.mp3',
        ...analysis(o),
      },
      postCallAnalysis(o),
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
    steps: (): Step[] => [
      { CallStatus: 'initiated' },
      { CallStatus: 'ringing' },
      { CallStatus: 'no-answer', CallDuration: '0' },
    ],
  },
  'live-call': {
    description:
      'A caller talks with the AI agent, the transcript reported turn by turn as it goes (callTranscript subscribers see each), then completed',
    steps: (): Step[] => [
      { CallStatus: 'initiated' },
      { CallStatus: 'in-progress' },
      ...LIVE_TURNS.map(([Speaker, Text], i) => ({ Callback: 'transcript', Sequence: String(i), Speaker, Text })),
      {
        CallStatus: 'completed',
        CallDuration: '45',
        Transcription: LIVE_TURNS.map(([who, text]) => `${who === 'agent' ? 'Agent' : 'Caller'}: ${text}`).join(' '),
      },
    ],
  },
  'tool-call': {
    description:
      "A caller talks with the AI agent, which calls one of its tools (--tool, --tool-arguments) mid-call; the tool's " +
      'result (or its fallback) goes into the conversation and the live transcript, then completed',
    steps: (o): Step[] => [
      { CallStatus: 'initiated' },
      { CallStatus: 'in-progress' },
      { Callback: 'transcript', Sequence: '0', Speaker: 'caller', Text: 'Is there an opening on Tuesday?' },
      {
        Callback: 'tool',
        Sequence: '1',
        Tool: o.tool ?? 'check_availability',
        Arguments: o.toolArguments ?? '{"day":"Tuesday"}',
      },
      { Callback: 'transcript', Sequence: '2', Speaker: 'agent', Text: 'Let me book the first opening for you.' },
      { CallStatus: 'completed', CallDuration: '38' },
    ],
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

const LIVE_TURNS: Array<[string, string]> = [
  ['agent', 'Hello, this is Ava from the clinic. How can I help?'],
  ['caller', 'Hi, I would like to book a cleaning.'],
  ['agent', 'Sure. Does Tuesday at 3 pm work for you?'],
  ['caller', 'Yes, that works.'],
];

function analysis(o: ScenarioOptions): Step {
  const booked: Step = o.book
    ? {
        Disposition: 'Appointment booked',
        Tags: 'appointment',
        AppointmentAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      }
    : { Disposition: 'Information given', Tags: 'question' };
  return {
    Transcription: 'Agent: Hello, this is your assistant. How can I help? Caller: I would like to come in next week.',
    Sentiment: 'positive',
    ...booked,
  };
}

/** The analysis callback after the call (a step with `Callback` goes to /api/telco/voice/<Callback> instead of status). */
function postCallAnalysis(o: ScenarioOptions): Step {
  return {
    Callback: 'analysis',
    Summary: o.book
      ? 'The caller asked to come in next week and booked an appointment.'
      : 'The caller asked about opening hours.',
    Sentiment: 'positive',
    Successful: o.book ? 'true' : 'false',
    CustomAnalysis: JSON.stringify({ new_patient: true, insurance_provider: 'Delta Dental' }),
  };
}

/** Plays a scenario; resolves with the call's CallSid. Throws when the service refuses a callback. */
export async function playScenario(name: string, o: ScenarioOptions): Promise<string> {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`Unknown scenario "${name}": ${Object.keys(SCENARIOS).join(', ')}`);
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const contact = o.contact ?? '+14155550123';
  let steps = scenario.steps(o);
  if (scenario.routed) {
    const instruction = await askRouting(o, callSid, contact);
    o.onInstruction?.(instruction);
    steps = scenario.routed(instruction, o);
  }
  for (const { Callback: callback, ...step } of steps) {
    const endpoint = `${o.url.replace(/\/$/, '')}/api/telco/voice/${callback ?? 'status'}`;
    const outbound = step.Direction?.startsWith('outbound');
    const params: Step = {
      AccountSid: o.accountSid,
      CallSid: callSid,
      From: outbound ? o.number : contact,
      To: outbound ? contact : o.number,
      Direction: 'inbound',
      ...step,
    };
    const response = await signedPost(endpoint, params, o.authToken);
    const answered = callback === 'tool' ? await response.text() : '';
    o.log?.(
      `${callback ? `${callback}${params.Speaker ? ` (${params.Speaker}: ${params.Text})` : ''}` : params.CallStatus}` +
        `${params.Tool ? ` (${params.Tool} ${params.Arguments})` : ''}` +
        `${params.TransferredTo ? ` (transferred to ${params.TransferredTo})` : ''}: ${response.status}${answered ? ` ${answered}` : ''}`,
    );
    if (response.status !== (callback === 'tool' ? 200 : 204))
      throw new Error(`${endpoint} answered ${response.status}: ${answered || (await response.text())}`);
    if (callback === 'tool') o.onToolResult?.(JSON.parse(answered));
    if (o.delayMs) await new Promise((resolve) => setTimeout(resolve, o.delayMs));
  }
  return callSid;
}

/** A callback as the provider sends it: form-encoded, signed with the account's auth token. */
const signedPost = (endpoint: string, params: Step, authToken: string) =>
  fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      [SIGNATURE_HEADER]: telcoSignature(endpoint, params, authToken),
    },
    body: new URLSearchParams(params).toString(),
  });

/** The provider's question for an inbound call: the service's answer is its instruction. */
async function askRouting(o: ScenarioOptions, callSid: string, contact: string): Promise<Instruction> {
  const endpoint = `${o.url.replace(/\/$/, '')}/api/telco/voice/inbound`;
  const params: Step = { AccountSid: o.accountSid, CallSid: callSid, From: contact, To: o.number };
  const response = await signedPost(endpoint, params, o.authToken);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${endpoint} answered ${response.status}: ${text}`);
  const instruction = readInstruction(text);
  const what =
    instruction.action === 'forward'
      ? `forward to ${instruction.forwardTo}`
      : instruction.action === 'reject'
        ? 'reject'
        : `answer with agent ${instruction.agentId ?? '(none)'}${Object.keys(instruction.variables).length ? ` ${JSON.stringify(instruction.variables)}` : ''}`;
  o.log?.(`inbound: ${response.status}, ${what}`);
  return instruction;
}

export interface SmsScenarioOptions extends Omit<ScenarioOptions, 'number' | 'book'> {
  /** A signed-in user of the company (send-sms): the scenario sends through the service's API, as a person would. */
  bearer: string;
}

export const SMS_SCENARIOS: Record<string, string> = {
  'sms-exchange':
    'The company texts a contact (POST /api/sms); the provider reports sent, then delivered; the contact replies',
  'sms-failed': 'The company texts a number that cannot receive it; the provider reports undelivered (error 30003)',
};

async function postCallback(
  o: Pick<ScenarioOptions, 'url' | 'authToken' | 'log'>,
  path: string,
  params: Step,
): Promise<void> {
  const endpoint = `${o.url.replace(/\/$/, '')}${path}`;
  const response = await signedPost(endpoint, params, o.authToken);
  o.log?.(`${path} ${params.MessageStatus ?? 'inbound'}: ${response.status}`);
  if (response.status !== 204) throw new Error(`${endpoint} answered ${response.status}: ${await response.text()}`);
}

/** Plays an SMS scenario; resolves with the ids of the messages it made. */
export async function playSmsScenario(name: string, o: SmsScenarioOptions): Promise<{ sent: string; reply?: string }> {
  if (!(name in SMS_SCENARIOS)) throw new Error(`Unknown scenario "${name}"`);
  const contact = o.contact ?? '+14155550123';
  const failing = name === 'sms-failed';
  const response = await fetch(`${o.url.replace(/\/$/, '')}/api/sms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${o.bearer}` },
    body: JSON.stringify({
      to: contact,
      body: failing ? 'Your code is 1234' : 'Reminder: your appointment is Tuesday at 3 pm. Reply to confirm.',
    }),
  });
  const sent = (await response.json()) as { data?: { id: string; from_number: string } };
  o.log?.(`POST /api/sms: ${response.status}`);
  if (response.status !== 201 || !sent.data)
    throw new Error(`POST /api/sms answered ${response.status}: ${JSON.stringify(sent)}`);
  const base = { AccountSid: o.accountSid, MessageSid: sent.data.id, From: sent.data.from_number, To: contact };
  const pause = () => (o.delayMs ? new Promise((resolve) => setTimeout(resolve, o.delayMs)) : Promise.resolve());
  if (failing) {
    await postCallback(o, '/api/telco/sms/status', { ...base, MessageStatus: 'undelivered', ErrorCode: '30003' });
    return { sent: sent.data.id };
  }
  await postCallback(o, '/api/telco/sms/status', { ...base, MessageStatus: 'sent' });
  await pause();
  await postCallback(o, '/api/telco/sms/status', { ...base, MessageStatus: 'delivered' });
  await pause();
  const reply = `SM${randomBytes(16).toString('hex')}`;
  await postCallback(o, '/api/telco/sms/inbound', {
    AccountSid: o.accountSid,
    MessageSid: reply,
    From: contact,
    To: sent.data.from_number,
    Body: 'Yes, Tuesday at 3 pm works.',
  });
  return { sent: sent.data.id, reply };
}
