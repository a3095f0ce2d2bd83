/**
 * The live view: volumes, nodes and operations as the story plays. On a terminal the frame is
 * redrawn in place (ANSI); anywhere else (CI logs, a pipe) it prints plain lines as things happen.
 */
import type { ActionResult } from '../../lambda/reconcile/pass/types.js';
import type { KcmStepReport } from '../kcm/kcm.js';
import type { Director, Invocation } from './director.js';
import { total } from '../oracle/ledger.js';
import type { Truth } from '../oracle/truth.js';
import type { Check } from './scene.js';

export interface ViewHeader {
  seed: number;
  nodes: number;
  speed: number;
  chapter: string;
}

const LOG_LINES = 14;
const FRAME_MS = 150;

export class LiveView {
  private readonly log: string[] = [];
  private header: ViewHeader;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();

  constructor(
    private readonly director: Director,
    header: Omit<ViewHeader, 'chapter'>,
    private readonly out: NodeJS.WriteStream = process.stdout,
  ) {
    this.header = { ...header, chapter: '' };
    if (this.live) {
      this.timer = setInterval(() => this.draw(), FRAME_MS);
      this.timer.unref();
    }
  }

  get live(): boolean {
    return this.out.isTTY;
  }

  chapter(index: number, count: number, title: string): void {
    this.header.chapter = `Chapter ${index}/${count} · ${title}`;
    this.line('');
    this.line(`== ${this.header.chapter} ==`);
  }

  say(text: string): void {
    this.line(`  ${text}`);
  }

  invoked(invocation: Invocation): void {
    this.line(`  ▸ ${clockTime(invocation.at)} ${invocation.label}: ${describeInvocation(invocation)}`);
  }

  /** What simulated kcm did in a reconciler round, when it did anything. */
  kcmStep(report: KcmStepReport): void {
    const parts = [
      ...report.created.map((va) => `created VolumeAttachment ${va}`),
      ...report.deleted.map((va) => `deleted VolumeAttachment ${va}`),
      ...report.failed.map((f) => `${f.kind} of ${f.va} failed: ${f.error}`),
    ];
    const settled = report.attached.length + report.detached.length;
    if (settled > 0) parts.push(`saw ${report.attached.length} attached, ${report.detached.length} detached; volumesAttached written`);
    for (const part of parts) this.line(`  ▹ ${clockTime(this.director.stage.clock.now())} kcm ${part}`);
  }

  checked(checks: Check[]): void {
    for (const c of checks) this.line(`  ${c.ok ? '✓' : '✗'} ${c.name}${c.ok || !c.detail ? '' : ` (${c.detail})`}`);
  }

  /** Stops redrawing and leaves the last frame on screen. */
  close(): void {
    clearInterval(this.timer);
    if (this.live) this.draw();
  }

  private line(text: string): void {
    this.log.push(text);
    if (!this.live) this.out.write(`${text}\n`);
  }

  private draw(): void {
    const frame = [...this.status(), '', ...this.log.slice(-LOG_LINES)];
    this.out.write(`\x1b[H\x1b[J${frame.join('\n')}\n`);
  }

  private status(): string[] {
    const d = this.director;
    const truth = d.truth();
    const real = Math.round((Date.now() - this.startedAt) / 1000);
    return [
      `\x1b[1mEBS attach/detach controller · local demo\x1b[0m   seed ${this.header.seed} · ${this.header.nodes} nodes · ×${this.header.speed} · story ${clockTime(d.stage.clock.now())} · real ${real}s`,
      this.header.chapter,
      nodeLine(truth),
      volumeLine(truth),
      ...busyNodes(truth),
      `Recent: ${recentActions(d.invocations).join(' · ') || 'nothing yet'}`,
      `API calls: ${apiLine(d)} · invariant checkpoints ${d.checkpoints}, broken ${d.violations.length}`,
    ];
  }
}

function clockTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(11, 19);
}

function describeInvocation(invocation: Invocation): string {
  if (invocation.error) return `failed: ${invocation.error}`;
  const results = invocation.reports.flatMap((r) => r.results);
  const outcome = (o: ActionResult['outcome']) => results.filter((r) => r.outcome === o).length;
  const passes = invocation.reports.length;
  const converged = invocation.reports.every((r) => r.converged) ? 'converged' : 'work left';
  const kinds = [...Map.groupBy(results, (r) => r.kind)].map(([kind, list]) => `${list.length} ${kind}`).join(', ');
  return `${passes} pass${passes === 1 ? '' : 'es'}, ${results.length ? kinds : 'nothing to do'}${results.length ? ` (${outcome('ok')} ok, ${outcome('failed')} failed, ${outcome('deferred')} deferred)` : ''} · ${converged}`;
}

function nodeLine(truth: Truth): string {
  const nodes = [...truth.nodes.values()];
  const running = [...truth.instanceStates.values()].filter((s) => s === 'running').length;
  return `Nodes ${nodes.length} · Ready ${nodes.filter((n) => n.ready).length} · NotReady ${nodes.filter((n) => !n.ready).length} · instances running ${running}`;
}

function volumeLine(truth: Truth): string {
  const states = Map.groupBy(truth.attachments, (a) => a.state);
  const count = (s: string) => states.get(s as never)?.length ?? 0;
  const waiting = truth.desired.filter((p) => !truth.nodes.get(p.nodeName)?.volumesInUse.includes(p.uniqueName)).length;
  return `EBS attachments · attached ${count('attached')} · attaching ${count('attaching')} · detaching ${count('detaching') + count('busy')} · pod volumes waiting to mount ${waiting}`;
}

/** Nodes worth a look: not Ready, or with an attachment in flight. */
function busyNodes(truth: Truth): string[] {
  return [...truth.nodes.values()]
    .filter((n) => !n.ready || truth.attachments.some((a) => a.instanceId === n.instanceId && a.state !== 'attached'))
    .slice(0, 5)
    .map((n) => {
      const mine = truth.attachments.filter((a) => a.instanceId === n.instanceId);
      const moving = mine
        .filter((a) => a.state !== 'attached')
        .map((a) => `${a.volumeId} ${a.state}`)
        .join(', ');
      return `  ${n.name.replace('.ec2.internal', '').padEnd(16)} ${n.ready ? 'Ready   ' : 'NotReady'} ${truth.instanceStates.get(n.instanceId ?? '') ?? 'no instance'} · attached ${mine.length} · reported ${n.volumesAttached.length} · in use ${n.volumesInUse.length}${moving ? ` · ${moving}` : ''}`;
    });
}

function recentActions(invocations: Invocation[]): string[] {
  return invocations
    .flatMap((i) => i.reports.flatMap((r) => r.results))
    .slice(-4)
    .map((r) => `${r.kind} ${r.volumeId}→${r.nodeName.replace('.ec2.internal', '')} ${r.outcome}`);
}

function apiLine(d: Director): string {
  const ledger = d.stage.ledger;
  return `EC2 ${total(ledger.ec2Totals.calls)} (${total(ledger.ec2Totals.throttled)} throttled) · Kubernetes ${total(ledger.kubeTotals.calls)} · DynamoDB ${total(d.stage.dynamo.meter.calls)}`;
}
