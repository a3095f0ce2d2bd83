/**
 * Runs the demo's invocations against the stage and keeps the books: every handler call is
 * bracketed by ground-truth checkpoints (DESIGN §11's invariants), every pass report is kept for
 * the live view and the summary, and the simulated kcm (attacher mode) and kubelets run after each step.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Controller } from '../../lambda/composition.js';
import type { PassReport } from '../../lambda/reconcile/pass/types.js';
import type { Reaction, WatcherReport } from '../../lambda/reconcile/watch/types.js';
import type { Handlers, LocalStack } from '../local-stack.js';
import { ec2StateChange, kubernetesEvent, lambdaContext, scheduledInput, sqsBatch, type InvolvedObject } from '../events.js';
import type { KcmStepReport } from '../kcm/kcm.js';
import { Kubelets } from '../kubelets.js';
import { checkConvergence, checkStep, type Violation } from '../oracle/checks.js';
import type { Ec2Mutation } from '../oracle/calls.js';
import { readTruth, type Truth } from '../oracle/truth.js';

export interface Invocation {
  handler: keyof Handlers;
  label: string;
  at: number;
  reports: PassReport[];
  error?: string;
}

export interface ClusterEventSpec {
  object: InvolvedObject;
  reason: string;
  message: string;
}

const LAMBDA_TIMEOUT_MS = 5 * 60_000;

export class Director {
  readonly invocations: Invocation[] = [];
  readonly violations: (Violation & { step: string })[] = [];
  checkpoints = 0;
  /** Every AttachVolume / DetachVolume EC2 received, in order. */
  readonly ec2Mutations: Ec2Mutation[] = [];
  /** The invocation a pass belongs to, followed through its async calls. */
  private readonly current = new AsyncLocalStorage<PassReport[]>();
  private listeners: ((invocation: Invocation) => void)[] = [];
  private kcmListeners: ((report: KcmStepReport) => void)[] = [];

  private readonly handlers: Handlers;
  private readonly nodeAgents: Kubelets;

  constructor(readonly stage: LocalStack) {
    this.nodeAgents = new Kubelets(stage.kube, stage.ec2);
    this.handlers = stage.handlers(observing(stage.controller, (report) => this.current.getStore()?.push(report)));
  }

  onInvoked(listener: (invocation: Invocation) => void): void {
    this.listeners.push(listener);
  }

  onKcmStep(listener: (report: KcmStepReport) => void): void {
    this.kcmListeners.push(listener);
  }

  truth(): Truth {
    return readTruth(this.stage.ec2, this.stage.kube);
  }

  /** A scheduled tick: EventBridge Scheduler invokes the full pass. */
  async tick(label = 'scheduled full pass'): Promise<Invocation> {
    return (await this.step([this.scheduledRun(label)]))[0] as Invocation;
  }

  /** Events from kubernetes-event-exporter, delivered as one SQS batch. */
  async clusterEvents(events: ClusterEventSpec[], label: string): Promise<Invocation> {
    return (await this.step([this.clusterEventRun(events, label)]))[0] as Invocation;
  }

  async ec2Event(instanceId: string, state: string, label: string): Promise<Invocation> {
    return (await this.step([this.ec2EventRun(instanceId, state, label)]))[0] as Invocation;
  }

  scheduledRun(label = 'scheduled full pass'): () => Promise<Invocation> {
    return () => this.run('scheduled', label, scheduledInput());
  }

  clusterEventRun(events: ClusterEventSpec[], label: string): () => Promise<Invocation> {
    return () =>
      this.run('clusterEvent', label, sqsBatch(events.map((e) => kubernetesEvent(e.object, e.reason, e.message, this.stage.clock.now()))));
  }

  ec2EventRun(instanceId: string, state: string, label: string): () => Promise<Invocation> {
    return () => this.run('ec2Event', label, sqsBatch([ec2StateChange(instanceId, state, this.stage.clock.now())]));
  }

  /**
   * A watcher invocation beside the story, as the schedule starts one in AWS (its own execution
   * environment): `onReaction` hears of each pass it runs; `stop` ends it as its deadline would.
   */
  watch(onReaction: (reaction: Reaction) => void): { stop(): Promise<WatcherReport> } {
    const controller = this.stage.invocation({ watcher: { onReaction } });
    const abort = new AbortController();
    const endsAt = this.stage.clock.now() + 300_000;
    const done = controller.watch({ deadline: endsAt - 10_000, endsAt, signal: abort.signal });
    return {
      stop: async () => {
        abort.abort();
        const report = await done;
        await controller.close();
        return report;
      },
    };
  }

  /** One step: invocations run side by side (e.g. a tick racing an event batch), checked as one. */
  async step(runs: (() => Promise<Invocation>)[]): Promise<Invocation[]> {
    const before = this.truth();
    this.stage.ledger.drain();
    const invocations = await Promise.all(runs.map((run) => run()));
    this.checkpoint(before, invocations.map((i) => i.label).join(' + '));
    this.kubelets();
    return invocations;
  }

  /**
   * kcm (attacher mode) takes one reconciler round: creates and deletes VolumeAttachments, writes
   * volumesAttached. Then the kubelets mount what was reported attached (and EC2 attached) and
   * unmount, in a few seconds, what no pod needs.
   */
  kubelets(): void {
    const report = this.stage.kcm?.step();
    if (report) for (const listener of this.kcmListeners) listener(report);
    this.nodeAgents.run();
  }

  /** The kubelets unmount what no pod needs any more: story time moves on until the last unmount has finished. */
  unmount(): void {
    this.nodeAgents.run();
    const last = this.nodeAgents.pendingUnmounts().at(-1);
    if (last !== undefined) this.stage.clock.advance(Math.max(0, last - this.stage.clock.now()));
    this.nodeAgents.run();
  }

  private async run(name: keyof Handlers, label: string, event: unknown): Promise<Invocation> {
    const invocation: Invocation = { handler: name, label, at: this.stage.clock.now(), reports: [] };
    try {
      await this.current.run(invocation.reports, () =>
        (this.handlers[name] as (e: unknown, c: ReturnType<typeof lambdaContext>) => Promise<unknown>)(
          event,
          lambdaContext(LAMBDA_TIMEOUT_MS, name),
        ),
      );
    } catch (error) {
      invocation.error = error instanceof Error ? error.message : String(error);
    }
    this.invocations.push(invocation);
    for (const listener of this.listeners) listener(invocation);
    return invocation;
  }

  /** Checks invariants 1, 2, 3 and 5 across what happened since `before`. */
  checkpoint(before: Truth, label: string): void {
    const drained = this.stage.ledger.drain();
    this.ec2Mutations.push(...drained.mutations);
    const after = this.truth();
    this.checkpoints += 1;
    for (const violation of checkStep({ before, after, detaches: drained.detaches, mutations: drained.mutations }))
      this.violations.push({ ...violation, step: label });
    if (!drained.complete)
      this.violations.push({
        invariant: 2,
        message: 'some DetachVolume calls could not be inspected (EC2 request log overflowed)',
        step: label,
      });
  }

  /** Ticks (moving story time on by `stepMs` each) until a pass converges and EC2 is settled, at most `max` times. */
  async settle(max = 6, stepMs = 20_000): Promise<boolean> {
    for (let i = 0; i < max; i++) {
      const invocation = await this.tick(i === 0 ? 'scheduled full pass' : 'scheduled full pass (again)');
      if (invocation.reports.every((r) => r.converged) && this.convergence().length === 0) return true;
      this.stage.clock.advance(stepMs);
    }
    return false;
  }

  private convergence(): Violation[] {
    return checkConvergence(this.truth(), { nodeStatusBy: this.stage.kcm ? 'kcm' : 'controller' });
  }

  /** Invariant 4 at the end: desired equals actual, and node status and VolumeAttachments agree. */
  finalConvergence(): Violation[] {
    const violations = this.convergence();
    this.checkpoints += 1;
    for (const violation of violations) this.violations.push({ ...violation, step: 'final convergence' });
    return violations;
  }
}

/** The same controller; its pass reports are also handed to `seen` (the view and the summary read them). */
function observing(controller: Controller, seen: (report: PassReport) => void): Controller {
  return {
    ...controller,
    fullPass: async (budget, options) => {
      const report = await controller.fullPass(budget, options);
      seen(report);
      return report;
    },
    targetedPass: async (target, budget, options) => {
      const report = await controller.targetedPass(target, budget, options);
      seen(report);
      return report;
    },
  };
}
