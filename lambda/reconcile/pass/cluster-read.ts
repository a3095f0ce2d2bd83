/**
 * A pass's cluster read (DESIGN §4): a failure is no evidence either way, so the pass goes on with
 * nothing read, marked incomplete: it then attaches and detaches nothing, but still verifies and
 * resolves expired operations. Both operating modes read through here.
 */
import type { ReconcileDeps } from './types.js';

export type ClusterRead<T> = { read: T; complete: boolean; error?: string };

export async function readOrNothing<T>(deps: ReconcileDeps, read: () => Promise<T>, nothing: T): Promise<ClusterRead<T>> {
  try {
    return { read: await read(), complete: true };
  } catch (error) {
    const message = `cluster read failed, so this pass attaches and detaches nothing: ${error instanceof Error ? error.message : String(error)}`;
    deps.log.error('cluster read failed', { error: message });
    return { read: nothing, complete: false, error: message };
  }
}
