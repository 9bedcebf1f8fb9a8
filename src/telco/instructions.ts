import type { CallDecision } from '../kernel/call-decision.js';

// The answer to the provider's inbound call callback: its instruction for the
// call, in the provider's markup (TwiML's elements: Connect, Dial, Reject).
// An agent and its dynamic variables go in <Connect><Agent><Parameter>.

const xmlEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const OPEN = '<?xml version="1.0" encoding="UTF-8"?><Response>';

export const INSTRUCTION_CONTENT_TYPE = 'text/xml; charset=utf-8';

/** The markup that tells the provider what to do with the call. */
export function instructionFor(decision: CallDecision): string {
  const open = OPEN;
  if (decision.action === 'forward') return `${open}<Dial>${xmlEscape(decision.forwardTo ?? '')}</Dial></Response>`;
  if (decision.action === 'reject') return `${open}<Reject reason="rejected"/></Response>`;
  return agentInstruction(decision.agentId, decision.variables);
}

/** An AI agent takes the call, told these variables (an inbound call's answer; a campaign's call, sent with its dial). */
export function agentInstruction(agentId: number | null, variables: Record<string, string>): string {
  // In the order of their names: the same decision is the same bytes, whether it comes from the endpoint's answer
  // or from the call's stored copy (jsonb keeps keys in an order of its own).
  const parameters = Object.entries(variables)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `<Parameter name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`)
    .join('');
  const agent = agentId === null ? '' : ` id="${agentId}"`;
  return `${OPEN}<Connect><Agent${agent}>${parameters}</Agent></Connect></Response>`;
}

/** What a provider reads from the markup (the simulator plays it). */
export interface Instruction {
  action: 'answer' | 'forward' | 'reject';
  agentId?: string;
  forwardTo?: string;
  variables: Record<string, string>;
}

const xmlUnescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Reads an instruction this module wrote. */
export function readInstruction(xml: string): Instruction {
  const dial = /<Dial>([^<]*)<\/Dial>/.exec(xml);
  if (dial) return { action: 'forward', forwardTo: xmlUnescape(dial[1]), variables: {} };
  if (/<Reject\b/.test(xml)) return { action: 'reject', variables: {} };
  const agent = /<Agent(?: id="(\d+)")?>/.exec(xml);
  const variables: Record<string, string> = {};
  for (const [, name, value] of xml.matchAll(/<Parameter name="([^"]*)" value="([^"]*)"\/>/g))
    variables[xmlUnescape(name)] = xmlUnescape(value);
  return { action: 'answer', agentId: agent?.[1], variables };
}
