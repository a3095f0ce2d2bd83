/**
 * The watcher's work queue, as client-go's workqueue serves a controller: one entry per target,
 * however many changes name it (a pass reads the object as it is now, so one pass answers them
 * all); a target whose pass is running is marked to run once more after it, never twice at once;
 * a bounded number of passes in flight. A pass that fails is retried with backoff (its changes stay
 * unhandled meanwhile) and given up after a few attempts, left to the full pass (a mark in the
 * store makes the next one complete); one that ends
 * unconverged (a lock held, an attach still going, a volume still on its old node) is looked at
 * again with backoff, and at once when another pass detached something.
 */
import { backoffMs } from './backoff.js';
import type { Mark } from './prefix.js';
import type { Reaction, WatcherDeps } from './types.js';
import { targetKey, type Budget, type PassReport, type Target } from '../pass/types.js';

interface Work {
  target: Target;
  /** Changes the next run answers. */
  waiting: Mark[];
  /** When the oldest of them arrived. */
  since: number;
  running: boolean;
  /** A run is owed (changes waiting, a retry or a follow-up), not before `notBefore`. */
  due: boolean;
  notBefore: number;
  failures: number;
  followUps: number;
}

export interface DispatchStats {
  passes: number;
  failedPasses: number;
  abandoned: number;
  queueWaits: number[];
}

export class Dispatcher {
  private readonly work = new Map<string, Work>();
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  readonly stats: DispatchStats = { passes: 0, failedPasses: 0, abandoned: 0, queueWaits: [] };

  constructor(
    private readonly deps: WatcherDeps,
    private readonly budget: Budget,
    /** False once no new pass may start (the watcher is ending). */
    private readonly mayStart: () => boolean,
  ) {}

  /** A change that asks for `target`'s pass; its mark is done once a pass started after it has finished. */
  add(target: Target, mark: Mark): void {
    const key = targetKey(target);
    const now = this.deps.clock();
    const work = this.work.get(key) ?? this.fresh(target, now);
    // The newest change's target: a pass reads the object as the last change left it.
    work.target = target;
    if (work.waiting.length === 0) work.since = now;
    work.waiting.push(mark);
    work.due = true;
    // A new change is looked at now, whatever backoff an earlier failure left (the workqueue's Add).
    work.notBefore = Math.min(work.notBefore, now);
    this.work.set(key, work);
    this.pump();
  }

  /**
   * The object is now as it should be (our own writes come back this way): the changes still waiting
   * for a pass are answered by it, as a workqueue's sync of the latest object would find nothing
   * to do. A retry or follow-up already owed stays owed.
   */
  settle(target: Target): void {
    const work = this.work.get(targetKey(target));
    if (work === undefined || work.waiting.length === 0) return;
    for (const mark of work.waiting) mark.done = true;
    work.waiting = [];
    if (work.failures === 0 && work.followUps === 0) work.due = false;
    if (!work.running && !work.due) this.work.delete(targetKey(target));
  }

  /** Starts what is due, within the concurrency and the time left. */
  pump(): void {
    const now = this.deps.clock();
    for (const work of this.work.values()) {
      if (this.inFlight >= this.deps.settings.concurrency || !this.mayStart()) return;
      if (work.running || !work.due || work.notBefore > now) continue;
      this.start(work, now);
    }
  }

  /** Resolves once every pass in flight has finished. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Changes some pass still owes an answer (given up on when the watcher ends). */
  owed(): number {
    return [...this.work.values()].reduce((sum, work) => sum + work.waiting.length, 0);
  }

  private fresh(target: Target, now: number): Work {
    return { target, waiting: [], since: now, running: false, due: false, notBefore: now, failures: 0, followUps: 0 };
  }

  private start(work: Work, now: number): void {
    const answers = work.waiting;
    const receivedAt = answers.length > 0 ? work.since : now;
    work.waiting = [];
    work.running = true;
    work.due = false;
    this.inFlight += 1;
    this.stats.passes += 1;
    if (answers.length > 0) this.stats.queueWaits.push(now - receivedAt);
    const run = this.run(work, answers, receivedAt, now).finally(() => {
      this.running.delete(run);
      this.inFlight -= 1;
      work.running = false;
      if (!work.due && work.waiting.length === 0) this.work.delete(targetKey(work.target));
      this.pump();
    });
    this.running.add(run);
  }

  private async run(work: Work, answers: Mark[], receivedAt: number, startedAt: number): Promise<void> {
    const { retry } = this.deps.settings;
    let report: PassReport | undefined;
    try {
      report = await this.deps.runTarget(work.target, this.budget);
    } catch (error) {
      this.stats.failedPasses += 1;
      work.failures += 1;
      if (work.failures >= retry.failures) {
        this.stats.abandoned += 1;
        // Left to the full pass: the store's mark makes the next one complete. Without the mark the
        // changes stay unhandled, so the checkpoint stays before them and the next watcher tries again.
        if (await this.markGaveUp()) for (const mark of answers) mark.done = true;
        this.deps.log.error('watcher gave up on a target; the full pass will look at it', {
          target: targetKey(work.target),
          attempts: work.failures,
          error: String(error),
        });
      } else {
        work.waiting = [...answers, ...work.waiting];
        this.owe(work, backoffMs(work.failures, retry));
      }
      this.tell(work, receivedAt, startedAt, 'failed', 0);
      return;
    }
    work.failures = 0;
    for (const mark of answers) mark.done = true;
    if (work.waiting.length > 0) this.owe(work, 0);
    else if (!report.converged && work.followUps < retry.followUps) this.owe(work, backoffMs(++work.followUps, retry));
    else if (report.converged) work.followUps = 0;
    // A detach frees a volume another target may be waiting for (a pod moving to another node).
    if (report.results.some((r) => r.kind === 'detach' && r.outcome === 'ok')) this.wakeFollowUps();
    this.tell(work, receivedAt, startedAt, report.converged ? 'converged' : 'unconverged', report.actions.length);
  }

  private async markGaveUp(): Promise<boolean> {
    try {
      await this.deps.watchers.markGaveUp(this.deps.clock());
      return true;
    } catch (error) {
      this.deps.log.warn('could not leave the give-up mark; the changes stay unhandled', { error: String(error) });
      return false;
    }
  }

  private owe(work: Work, delayMs: number): void {
    work.due = true;
    work.notBefore = this.deps.clock() + delayMs;
  }

  private wakeFollowUps(): void {
    const now = this.deps.clock();
    for (const work of this.work.values()) if (work.due && work.waiting.length === 0) work.notBefore = Math.min(work.notBefore, now);
  }

  private tell(work: Work, receivedAt: number, startedAt: number, outcome: Reaction['outcome'], actions: number): void {
    const finishedAt = this.deps.clock();
    const reaction: Reaction = { target: work.target, receivedAt, startedAt, finishedAt, outcome, actions };
    this.deps.log.info('watcher reacted', {
      target: targetKey(work.target),
      waitedMs: startedAt - receivedAt,
      passMs: finishedAt - startedAt,
      outcome,
      actions,
    });
    this.deps.onReaction?.(reaction);
  }
}
