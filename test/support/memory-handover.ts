/**
 * The handover record in memory, with the store's semantics (core/attacher/handover.ts): enter only
 * while writes are on, compare-and-swap on the version. For unit tests of the fence and the
 * handover; the DynamoDB adapter is tested against the same contract (test/dynamodb/handover.test.ts).
 */
import { applyChange, NO_HANDOVER, type HandoverChange, type HandoverState } from '../../lambda/core/attacher/handover.js';
import type { HandoverStore } from '../../lambda/ports/handover.js';

export class MemoryHandover implements HandoverStore {
  state: HandoverState = NO_HANDOVER;
  /** Calls by method, for what a pass costs. */
  readonly calls: string[] = [];

  read(): Promise<HandoverState> {
    this.calls.push('read');
    return Promise.resolve(structuredClone(this.state));
  }

  enter(passId: string, until: number): Promise<{ entered: boolean; state: HandoverState }> {
    this.calls.push('enter');
    if (this.state.writes === 'off') return Promise.resolve({ entered: false, state: structuredClone(this.state) });
    this.state = { ...this.state, passes: { ...this.state.passes, [passId]: until } };
    return Promise.resolve({ entered: true, state: structuredClone(this.state) });
  }

  leave(passIds: readonly string[]): Promise<void> {
    this.calls.push('leave');
    this.state = { ...this.state, passes: Object.fromEntries(Object.entries(this.state.passes).filter(([id]) => !passIds.includes(id))) };
    return Promise.resolve();
  }

  update(change: HandoverChange, version: number): Promise<'ok' | 'conflict'> {
    this.calls.push('update');
    if (this.state.version !== version) return Promise.resolve('conflict');
    this.state = applyChange(this.state, change);
    return Promise.resolve('ok');
  }
}
