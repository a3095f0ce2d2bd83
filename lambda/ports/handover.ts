/**
 * The handover record every invocation shares (core/attacher/handover.ts). Implemented by
 * `adapters/dynamodb/handover.ts` as one item of the state table.
 */
import type { HandoverChange, HandoverState } from '../core/attacher/handover.js';

export interface HandoverStore {
  /** A strongly consistent read; `NO_HANDOVER` when the item does not exist. Throws on an unreadable item. */
  read(): Promise<HandoverState>;
  /**
   * Registers pass `passId` as able to act until `until`, in one conditional write that succeeds only
   * while writes are on (so a handback that turned them off sees every pass that may still act);
   * `entered: false` when writes are off (nothing written). Either way the record as it now stands.
   */
  enter(passId: string, until: number): Promise<{ entered: boolean; state: HandoverState }>;
  /** Removes registrations: a pass's own at its end, and any that expired (whose passes have surely stopped). */
  leave(passIds: readonly string[]): Promise<void>;
  /** Applies `change` if the record is still at `version`; `conflict` when another invocation wrote first. */
  update(change: HandoverChange, version: number): Promise<'ok' | 'conflict'>;
}
