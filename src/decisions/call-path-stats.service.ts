import type { RequestContext } from '../context/request-context.js';
import { histogramPercentile } from '../kernel/attempt-outcome.js';
import {
  ANSWER_OUTCOMES,
  addCounts,
  CALL_PATH_BOUNDS_MS,
  type CallPathCounts,
  type CallPathKind,
  emptyCounts,
} from '../kernel/call-path-outcome.js';
import { type StatsArgs, statsWindow, type StatsWindow } from '../kernel/time/stats-window.js';
import { callPathStatsRepository } from '../repositories/call-path-stats.repository.js';
import type { DecisionEndpointService } from './decision.service.js';
import type { BreakerView } from './endpoint-health.js';
import type { AgentToolService } from './tool.service.js';

// The record over time of a decision endpoint or an agent tool (docs/call-routing.md, "Endpoint health"): what it was
// asked, answered or fallen back from by reason, the time Switchboard added and the endpoint's own, its breaker's
// openings; in buckets of the company's zone, with the company's totals for endpoints of the same kind beside it.

/** A span's figures: questions by outcome, the answer rate, the two times' percentiles (ms). */
export interface CallPathFigures {
  questions: number;
  answered: number;
  timeout: number;
  error: number;
  invalid: number;
  unreachable: number;
  breakerOpen: number;
  hedged: number;
  breakerOpenings: number;
  answerRate: number | null;
  addedP50Ms: number | null;
  addedP99Ms: number | null;
  endpointP50Ms: number | null;
  endpointP99Ms: number | null;
}

export interface CallPathStatsRecord extends StatsWindow {
  kind: CallPathKind;
  endpointId: number;
  totals: CallPathFigures;
  /** The company's endpoints of the same kind, same window. */
  companyTotals: CallPathFigures;
  /** The breaker now, as the process answering sees it. */
  breaker: BreakerView;
  points: Array<CallPathFigures & { at: Date }>;
}

export class CallPathStatsService {
  constructor(
    private readonly decisions: DecisionEndpointService,
    private readonly tools: AgentToolService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A decision endpoint's or an agent tool's record; 404 for another company's, an unknown or a malformed id. */
  async forEndpoint(
    ctx: RequestContext,
    kind: CallPathKind,
    rawId: string,
    args: StatsArgs,
  ): Promise<CallPathStatsRecord> {
    const endpoint = kind === 'decision' ? await this.decisions.view(ctx, rawId) : await this.tools.view(ctx, rawId);
    const { company } = await ctx.viewer();
    const window = statsWindow(args, company.timeZone, this.clock());
    const [points, companyTotals] = await Promise.all([
      callPathStatsRepository.series(ctx, { kind, endpointId: endpoint.id }, window),
      callPathStatsRepository.totals(ctx, { kind, companyId: company.id }, window),
    ]);
    return {
      kind,
      endpointId: endpoint.id,
      ...window,
      totals: figures(points.reduce(addCounts, emptyCounts())),
      companyTotals: figures(companyTotals),
      breaker: endpoint.breaker,
      points: points.map((point) => ({ at: point.at, ...figures(point) })),
    };
  }

  /** Deletes what the record no longer keeps: minutes after a day and an hour, quarter hours after 91 days. */
  purge(ctx: RequestContext): Promise<number> {
    return ctx.unitOfWork((inner) => callPathStatsRepository.purge(inner, this.clock()));
  }
}

function figures({ outcomes, hedged, breakerOpenings, added, endpoint }: CallPathCounts): CallPathFigures {
  const questions = ANSWER_OUTCOMES.reduce((n, o) => n + outcomes[o], 0);
  const at = (counts: number[], p: number) => histogramPercentile(counts, p, CALL_PATH_BOUNDS_MS);
  return {
    questions,
    answered: outcomes.answered,
    timeout: outcomes.timeout,
    error: outcomes.error,
    invalid: outcomes.invalid,
    unreachable: outcomes.unreachable,
    breakerOpen: outcomes.breaker_open,
    hedged,
    breakerOpenings,
    answerRate: questions === 0 ? null : Math.round((outcomes.answered / questions) * 10_000) / 10_000,
    addedP50Ms: at(added, 50),
    addedP99Ms: at(added, 99),
    endpointP50Ms: at(endpoint, 50),
    endpointP99Ms: at(endpoint, 99),
  };
}
