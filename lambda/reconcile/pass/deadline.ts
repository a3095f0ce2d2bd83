/**
 * A pass's time budget. Lambda kills an invocation at its timeout; a pass that is still
 * calling EC2 then leaves intents behind that only lease expiry can clear. So every new
 * step asks `canStart` first and every wait ends at `waitUntil`, keeping a reserve to write
 * down what was started.
 */
import { leaseMsFor } from '../../core/operations.js';
import { type PlanConfig } from '../../core/config.js';
import type { Budget } from './types.js';

export class Deadline {
  constructor(
    private readonly budget: Budget,
    private readonly clock: () => number,
    private readonly reserveMs: number,
  ) {}

  /** Milliseconds left before the pass must stop starting work. */
  remaining(): number {
    if (this.budget.signal?.aborted === true) return 0;
    return this.budget.deadline - this.reserveMs - this.clock();
  }

  /** True while a step that needs about `needMs` can still finish and be written down. */
  canStart(needMs = 0): boolean {
    return this.remaining() > needMs;
  }

  /** How long a lease taken now lasts: to this invocation's end plus the margin (core `leaseMsFor`). */
  leaseMs(config: Pick<PlanConfig, 'leaseMarginMs'>): number {
    return leaseMsFor(this.budget.endsAt ?? this.budget.deadline, this.clock(), config);
  }

  /** The epoch ms a wait of at most `capMs` must end by. */
  waitUntil(capMs: number): number {
    const now = this.clock();
    return now + Math.max(0, Math.min(capMs, this.remaining()));
  }
}

/** The budget of a Lambda invocation: its remaining time minus a safety margin. */
export function budgetFromContext(
  context: { getRemainingTimeInMillis(): number },
  now: number,
  options: { safetyMarginMs: number; signal?: AbortSignal },
): Budget {
  const remaining = context.getRemainingTimeInMillis();
  const budget: Budget = { deadline: now + Math.max(0, remaining - options.safetyMarginMs), endsAt: now + remaining };
  return options.signal === undefined ? budget : { ...budget, signal: options.signal };
}
