/**
 * The mass-detach guard (DESIGN §11 invariant 3's safety net) judged from EC2's ground truth and
 * the store: when more than `minAttached` volumes are attached, one pass detaches at most
 * `maxFraction` of them. Exempt detaches (a stopped or gone instance, a stuck attach) are those not
 * aimed at an `attached` pair on a running instance, and are not counted.
 *
 * The controller counts what its store records as past attaching (and EC2 still shows), so the
 * check brackets that count: it applies only when the pairs EC2 has attached *and* the store
 * records attached are more than `minAttached` (the pass surely counted them), and allows the
 * fraction of every stored attachment past attaching plus every EC2 attachment the store does not
 * know, which the pass may adopt (the most it could have counted). It
 * is sound for a step of full passes only (one, or several sharing the mass-detach window) and no
 * EC2 read lag (the scenario judges only those).
 */
import type { DetachCall } from './calls.js';
import type { Violation } from './checks.js';
import { storePair } from './store-known.js';
import type { Truth } from './truth.js';

export interface MassDetachRule {
  maxFraction: number;
  minAttached: number;
}

/** One attachment entry as the store holds it. */
export interface StoredAttachment {
  volumeId: string;
  instanceId: string;
  state: string;
}

/** The attachment entries of the store's raw (unmarshalled) volume items. */
export function storedAttachments(items: Record<string, unknown>[]): StoredAttachment[] {
  return items.flatMap((item) =>
    typeof item.volumeId !== 'string'
      ? []
      : Object.values((item.attachments ?? {}) as Record<string, { instanceId?: string; state?: string }>).map((a) => ({
          volumeId: item.volumeId as string,
          instanceId: a.instanceId ?? '',
          state: a.state ?? '',
        })),
  );
}

export interface MassDetachFacts {
  /** Ground truth when the pass began. */
  before: Truth;
  /** The store's attachments when the pass began. */
  stored: StoredAttachment[];
  /** The DetachVolume calls EC2 received during the pass. */
  detaches: DetachCall[];
  rule: MassDetachRule;
}

/** What one step's passes detached against what the guard allows them; `applies` once they surely counted more than `minAttached`. */
export interface MassDetachFigures {
  applies: boolean;
  guarded: number;
  allowed: number;
  surelyCounted: number;
}

export function massDetachFigures({ before, stored, detaches, rule }: MassDetachFacts): MassDetachFigures {
  const recorded = new Map(stored.map((a) => [storePair(a.volumeId, a.instanceId), a.state]));
  const surelyCounted = before.attachments.filter(
    (a) => a.state === 'attached' && recorded.get(storePair(a.volumeId, a.instanceId)) === 'attached',
  ).length;
  // A pass may also adopt what EC2 holds and the store does not know (after a crash) and count it.
  const mostCounted =
    stored.filter((a) => a.state !== 'attaching').length +
    before.attachments.filter((a) => !recorded.has(storePair(a.volumeId, a.instanceId))).length;
  const allowed = Math.floor(rule.maxFraction * mostCounted);
  const guardedPair = (call: DetachCall) =>
    before.instanceStates.get(call.instanceId ?? '') === 'running' &&
    before.attachments.some((a) => a.volumeId === call.volumeId && a.instanceId === call.instanceId && a.state === 'attached');
  const guarded = new Set(detaches.filter(guardedPair).map((call) => storePair(call.volumeId, call.instanceId ?? ''))).size;
  return { applies: surelyCounted > rule.minAttached, guarded, allowed, surelyCounted };
}

export function massDetachViolations(facts: MassDetachFacts): Violation[] {
  const { applies, guarded, allowed, surelyCounted } = massDetachFigures(facts);
  const { rule } = facts;
  if (!applies || guarded <= allowed) return [];
  return [
    {
      invariant: 3,
      message: `the full passes of one step detached ${guarded} attached volumes from running instances while ${surelyCounted} were attached: the mass-detach guard allows at most ${allowed} (${rule.maxFraction} of them, above ${rule.minAttached} attached)`,
    },
  ];
}

/**
 * The shared mass-detach window across steps (DESIGN §5): every pass that surely counted more than
 * `minAttached` claims its detaches in the store's window, and a claim grants at most the claimer's
 * limit less what the window's live claims hold, so the guarded detaches of the judged steps whose
 * claims are all still live add up to at most the largest of their allowances. A step the judge
 * cannot see into (a targeted pass, a lagged EC2 read, one where the guard surely did not apply)
 * may have claimed with a limit it does not know, or not claimed at all: the run starts again.
 */
export class MassDetachWindowJudge {
  private steps: { at: number; guarded: number; allowed: number }[] = [];

  constructor(private readonly windowMs: number) {}

  unjudged(): void {
    this.steps = [];
  }

  /** One judged step: it began at `at` and ended at `endedAt` (a clock moved mid-step makes its claims later). */
  judge(figures: MassDetachFigures, at: number, endedAt: number): Violation[] {
    if (!figures.applies) {
      this.unjudged();
      return [];
    }
    // A claim made at or after a step's start is still live at a claim made before this step's end.
    this.steps = [
      ...this.steps.filter((step) => step.at > endedAt - this.windowMs),
      { at, guarded: figures.guarded, allowed: figures.allowed },
    ];
    if (this.steps.length < 2) return [];
    const guarded = this.steps.reduce((sum, step) => sum + step.guarded, 0);
    const allowed = Math.max(...this.steps.map((step) => step.allowed));
    if (guarded <= allowed) return [];
    return [
      {
        invariant: 3,
        message: `the passes of one mass-detach window (${this.steps.length} steps over ${Math.round((endedAt - (this.steps[0]?.at ?? at)) / 1000)} s) detached ${guarded} attached volumes from running instances: the window allows at most ${allowed}`,
      },
    ];
  }
}
