/** The mass-detach window every invocation shares (core/mass-detach-window.ts). Implemented by `adapters/dynamodb/mass-detach-window.ts`. */
import type { ClaimRequest } from '../core/mass-detach-window.js';

export interface MassDetachWindow {
  /**
   * Claims up to `request.wanted` detaches at `now` in one conditional write, against the claims
   * other invocations made in the last `request.windowMs`; returns how many were granted (0 when
   * the window is spent, without writing). A lost compare-and-swap re-reads and re-decides.
   * Throws when the store fails or holds an unreadable window: the caller then detaches nothing guarded.
   */
  claim(request: ClaimRequest, now: number): Promise<number>;
}
