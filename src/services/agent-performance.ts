import type { RequestContext } from '../context/request-context.js';
import type { Call } from '../entities/call.entity.js';
import { Rules } from '../kernel/validation.js';
import { callRepository } from '../repositories/call.repository.js';
import { agentRepository } from '../repositories/agent.repository.js';
import { companyRepository } from '../repositories/company.repository.js';

// agent.performance (docs/design.md §5): after each finished call of an AI
// agent, its answer rate and average sentiment over its last 20 finished
// calls are compared with the company's thresholds. The event fires when a
// metric crosses its threshold (below, or back above), once per crossing,
// never per call; at least 5 finished calls are needed to judge.

/** A sentiment as a number: positive 1, neutral 0, negative -1. */
const SENTIMENT_SCORES = new Map([
  ['positive', 1],
  ['neutral', 0],
  ['negative', -1],
]);

export const PERFORMANCE_WINDOW = 20;
export const PERFORMANCE_MIN_CALLS = 5;
/** Defaults: an answer rate under 60 %, an average sentiment under neutral (positive 1, neutral 0, negative -1). */
export const DEFAULT_THRESHOLDS = { answerRate: 0.6, averageSentiment: 0 } as const;

export interface Thresholds {
  answerRate: number;
  averageSentiment: number;
}

export async function thresholdsOf(ctx: RequestContext, companyId: number): Promise<Thresholds> {
  return { ...DEFAULT_THRESHOLDS, ...(await companyRepository.setting(ctx, 'agentPerformance', companyId)) };
}

export async function setThresholds(
  ctx: RequestContext,
  input: { answerRate?: number | null; averageSentiment?: number | null },
): Promise<Thresholds> {
  const rules = new Rules();
  if (input.answerRate !== undefined && input.answerRate !== null && !(input.answerRate >= 0 && input.answerRate <= 1))
    rules.add('answerRate', 'The answer rate field must be between 0 and 1.');
  if (
    input.averageSentiment !== undefined &&
    input.averageSentiment !== null &&
    !(input.averageSentiment >= -1 && input.averageSentiment <= 1)
  )
    rules.add('averageSentiment', 'The average sentiment field must be between -1 and 1.');
  rules.check();
  const companyId = await ctx.companyId();
  const next = { ...(await thresholdsOf(ctx, companyId)) };
  if (typeof input.answerRate === 'number') next.answerRate = input.answerRate;
  if (typeof input.averageSentiment === 'number') next.averageSentiment = input.averageSentiment;
  await companyRepository.setSetting(ctx, 'agentPerformance', next);
  return next;
}

/** Measures the agent and records agent.performance for each metric that crossed its threshold. */
export async function evaluateAgent(ctx: RequestContext, agentId: number): Promise<void> {
  const companyId = await ctx.companyId();
  // The agent row lock orders concurrent evaluations: each crossing is seen once.
  const agent = await agentRepository.lockedById(ctx, companyId, agentId);
  if (!agent) return;
  const stats = figures(await callRepository.latestEnded(ctx, agentId, PERFORMANCE_WINDOW));
  if (stats.calls < PERFORMANCE_MIN_CALLS) return;
  const thresholds = await thresholdsOf(ctx, companyId);
  const measured: Array<['answer_rate' | 'average_sentiment', number | null, number]> = [
    ['answer_rate', stats.answered / stats.calls, thresholds.answerRate],
    ['average_sentiment', stats.sentiment, thresholds.averageSentiment],
  ];
  const state = { ...agent.performanceState };
  for (const [metric, value, threshold] of measured) {
    if (value === null) continue;
    const side = value < threshold ? 'below' : 'above';
    // An agent starts out above: the first news is a fall.
    if ((state[metric] ?? 'above') === side) continue;
    state[metric] = side;
    await ctx.events.record('agent.performance', {
      agent_id: String(agent.id),
      name: agent.name,
      metric,
      value: Math.round(value * 1000) / 1000,
      threshold,
      direction: side,
      calls_considered: stats.calls,
    });
  }
  agent.performanceState = state;
  await agentRepository.save(ctx);
}

/** How many calls, how many answered (completed, with a length), and their average sentiment (null without one). */
function figures(calls: Array<Pick<Call, 'status' | 'durationSeconds' | 'sentiment'>>) {
  const scores = calls.flatMap((call) => {
    const score = call.sentiment ? SENTIMENT_SCORES.get(call.sentiment) : undefined;
    return score === undefined ? [] : [score];
  });
  return {
    calls: calls.length,
    answered: calls.filter((call) => call.status === 'completed' && call.durationSeconds > 0).length,
    sentiment: scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length,
  };
}
