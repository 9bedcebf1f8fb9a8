import { Embeddable, Enum, Property } from '@mikro-orm/core';
import { FALLBACK_REASONS, type FallbackReason } from '../kernel/call-decision.js';

/** What was decided for an inbound call, kept on the call as its `decision_*` columns (kernel/call-decision.ts). */
@Embeddable()
export class CallDecisionRecord {
  /** answer, forward or reject. */
  @Property({ type: 'string', length: 16, nullable: true })
  action?: string | null;

  /** The agent's id or the number forwarded to. */
  @Property({ type: 'text', nullable: true })
  target?: string | null;

  @Property({ type: 'text', nullable: true })
  reason?: string | null;

  @Property({ type: 'integer', nullable: true })
  latencyMs?: number | null;

  @Property({ type: 'json', nullable: true })
  variables?: Record<string, string> | null;

  @Enum({ items: () => [...FALLBACK_REASONS], nullable: true })
  fallbackReason?: FallbackReason | null;
}
