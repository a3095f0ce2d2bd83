/**
 * Fault injection: fail the next N calls of an action with an error code, slow an action down, or
 * let DescribeVolumes lag behind AttachVolume/DetachVolume (EC2's eventual consistency).
 * (Sticky attaches and busy detaches live on the world: they shape attachments, not requests.)
 */
import { volumeItem } from './actions/render.js';
import { Ec2Error } from './protocol/errors.js';
import type { Params } from './protocol/form.js';
import type { XmlObject } from './protocol/xml.js';
import type { SandboxVolume, World } from './state/model.js';

export interface FailureSpec {
  /** An action name, or `*` for any action. */
  action: string;
  count: number;
  code: string;
  message?: string;
  /** HTTP status; 400 for client errors unless given (503 for RequestLimitExceeded). */
  status?: number;
}

interface PendingFailure {
  remaining: number;
  error: Ec2Error;
}

function defaultStatus(code: string): number {
  if (code === 'RequestLimitExceeded' || code === 'Unavailable' || code === 'ServiceUnavailable') return 503;
  if (code === 'InternalError' || code === 'InternalFailure') return 500;
  return 400;
}

/** The mutations after which DescribeVolumes may still show the volume as it was. */
const LAGGING_MUTATIONS = new Set(['AttachVolume', 'DetachVolume']);

/** A volume as it was before a mutation, shown by DescribeVolumes until `until`. */
interface StaleView {
  volume: SandboxVolume;
  until: number;
}

export class Faults {
  private readonly failures = new Map<string, PendingFailure[]>();
  private readonly latency = new Map<string, number>();
  /** Answers still to lose, by action (`*`: any action). */
  private readonly lostAnswers = new Map<string, number>();
  /** Read lag by volume id (`*`: every volume), in ms. */
  private readonly readLag = new Map<string, number>();
  private readonly staleViews = new Map<string, StaleView>();

  failNext(spec: FailureSpec): void {
    if (!Number.isInteger(spec.count) || spec.count < 1) throw new RangeError(`count must be a positive integer, got ${spec.count}`);
    const error = new Ec2Error(spec.code, spec.message ?? `Injected ${spec.code}`, spec.status ?? defaultStatus(spec.code));
    const queue = this.failures.get(spec.action) ?? [];
    queue.push({ remaining: spec.count, error });
    this.failures.set(spec.action, queue);
  }

  /** Extra milliseconds before answering `action` (or `*`: every action). 0 removes it. */
  setLatency(action: string, ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`latency must be >= 0, got ${ms}`);
    if (ms === 0) this.latency.delete(action);
    else this.latency.set(action, ms);
  }

  /**
   * The next `count` calls of `action` (`*`: any action) are carried out, but their answers are
   * lost: the connection drops before the response, so the caller cannot tell what happened.
   */
  loseAnswers(action: string, count: number): void {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, got ${count}`);
    this.lostAnswers.set(action, (this.lostAnswers.get(action) ?? 0) + count);
  }

  /** Whether this call's answer is to be lost (consumes one). */
  takeLostAnswer(action: string): boolean {
    for (const key of [action, '*']) {
      const left = this.lostAnswers.get(key) ?? 0;
      if (left === 0) continue;
      if (left === 1) this.lostAnswers.delete(key);
      else this.lostAnswers.set(key, left - 1);
      return true;
    }
    return false;
  }

  latencyFor(action: string): number {
    return (this.latency.get(action) ?? 0) + (this.latency.get('*') ?? 0);
  }

  /** The injected error for this call of `action`, if one is pending (consumes it). */
  takeFailure(action: string): Ec2Error | undefined {
    for (const key of [action, '*']) {
      const queue = this.failures.get(key);
      const head = queue?.[0];
      if (!queue || !head) continue;
      head.remaining -= 1;
      if (head.remaining === 0) queue.shift();
      return head.error;
    }
    return undefined;
  }

  /**
   * For `ms` after each AttachVolume/DetachVolume of the volume (`*`: any volume), DescribeVolumes
   * shows it as it was before that call, as EC2's eventually consistent reads may. 0 ends it
   * (for `*`: every lag and stale view), and DescribeVolumes shows the truth again at once.
   */
  lagReads(ms: number, volumeId = '*'): void {
    if (!(ms >= 0)) throw new RangeError(`read lag must be >= 0, got ${ms}`);
    if (ms > 0) return void this.readLag.set(volumeId, ms);
    this.readLag.delete(volumeId);
    if (volumeId === '*') this.staleViews.clear();
    else this.staleViews.delete(volumeId);
  }

  /**
   * Called before an action runs; returns what to call once it succeeded. A mutation of a lagging
   * volume leaves a stale view behind; a view already shown keeps showing the oldest state.
   */
  beforeAction(action: string, params: Params, world: World, now: number): () => void {
    const volumeId = LAGGING_MUTATIONS.has(action) ? params.get('VolumeId') : undefined;
    const lag = volumeId === undefined ? 0 : (this.readLag.get(volumeId) ?? this.readLag.get('*') ?? 0);
    const volume = volumeId === undefined ? undefined : world.volumes.get(volumeId);
    if (!volume || lag === 0) return () => undefined;
    const kept = this.staleViews.get(volume.volumeId);
    const before = kept && kept.until > now ? kept.volume : structuredClone(volume);
    return () => void this.staleViews.set(volume.volumeId, { volume: before, until: now + lag });
  }

  /** DescribeVolumes' answer with the volumes whose stale view is still shown replaced by it. */
  lagged(action: string, answer: XmlObject, world: World, now: number): XmlObject {
    if (action !== 'DescribeVolumes' || this.staleViews.size === 0) return answer;
    const items = (answer.volumeSet as { item?: XmlObject[] } | undefined)?.item;
    if (!items) return answer;
    const shown = items.map((item) => {
      const stale = typeof item.volumeId === 'string' ? this.staleViews.get(item.volumeId) : undefined;
      return stale && stale.until > now ? volumeItem(stale.volume, now, world.config.delays) : item;
    });
    return { ...answer, volumeSet: { ...(answer.volumeSet as XmlObject), item: shown } };
  }

  clear(): void {
    this.failures.clear();
    this.latency.clear();
    this.lostAnswers.clear();
    this.readLag.clear();
    this.staleViews.clear();
  }
}
