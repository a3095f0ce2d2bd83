/** Small builders for the DynamoDB store tests: inputs, records and the read-decide-write loop. */
import { beginOperation, type BeginOperationInput, type Transition } from '../../lambda/core/transitions.js';
import { UNIQUE_NAME_PREFIX, type VolumeRecord } from '../../lambda/core/types.js';
import type { VolumeStore, WriteResult } from '../../lambda/ports/volume-store.js';

export const T0 = 1_700_000_000_000;
export const LEASE = 60_000;

export const volumeId = (n: number) => `vol-${n.toString(16).padStart(17, '0')}`;

let operations = 0;

export function attachInput(volume: string, node: string, extra: Partial<BeginOperationInput> = {}): BeginOperationInput {
  return {
    volumeId: volume,
    uniqueName: `${UNIQUE_NAME_PREFIX}${volume}`,
    accessModes: ['ReadWriteOnce'],
    multiAttach: false,
    kind: 'attach',
    nodeName: node,
    instanceId: `i-${node}`,
    operationId: `op-${node}-${++operations}`,
    ...extra,
  };
}

/** A stored-looking record with one attached node (version as given). */
export function attachedRecord(volume: string, node: string, version = 1): VolumeRecord {
  return {
    volumeId: volume,
    uniqueName: `${UNIQUE_NAME_PREFIX}${volume}`,
    accessModes: ['ReadWriteOnce'],
    multiAttach: false,
    attachments: {
      [node]: {
        nodeName: node,
        instanceId: `i-${node}`,
        state: 'attached',
        device: '/dev/xvdaa',
        mounted: true,
        reported: true,
        since: T0,
      },
    },
    operations: {},
    backoff: {},
    version,
  };
}

export type Outcome = { won: true; record: VolumeRecord } | { won: false; refused: string };

/**
 * What a pass does to take an operation: read, decide, compare-and-swap; on a conflict it
 * re-reads and re-decides, until it either holds the lock or the decision is a refusal.
 */
export async function takeOperation(store: VolumeStore, input: BeginOperationInput, now: number): Promise<Outcome> {
  for (;;) {
    const decision: Transition = beginOperation(await store.get(input.volumeId), input, now, LEASE);
    if (!decision.ok) return { won: false, refused: decision.refused };
    const written = await store.put(decision.record);
    if (written.ok) return { won: true, record: written.record };
  }
}

export function accepted(result: Transition): VolumeRecord {
  if (!result.ok) throw new Error(`refused ${result.refused}: ${result.reason}`);
  return result.record;
}

/** The record a write stored; a conflict here is a test failure. */
export function stored(result: WriteResult): VolumeRecord {
  if (!result.ok) throw new Error('unexpected conflict');
  return result.record;
}

/** The record of an operation this pass won. */
export function held(outcome: Outcome): VolumeRecord {
  if (!outcome.won) throw new Error(`expected to win, was refused: ${outcome.refused}`);
  return outcome.record;
}

/**
 * A store whose first `put` waits until released: a test can land another writer's write
 * exactly between this pass's read and its compare-and-swap.
 */
export function pausedBeforeFirstPut(store: VolumeStore) {
  let reached!: () => void;
  let release!: () => void;
  const atPut = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let paused = false;
  const gated: VolumeStore = {
    get: (id) => store.get(id),
    getMany: (ids) => store.getMany(ids),
    scan: (options) => store.scan(options),
    put: async (next, fence) => {
      if (!paused) {
        paused = true;
        reached();
        await released;
      }
      return store.put(next, fence);
    },
    remove: (record) => store.remove(record),
    getControllerState: () => store.getControllerState(),
    putControllerState: (next) => store.putControllerState(next),
    reservedDevices: (instanceId, now) => store.reservedDevices(instanceId, now),
    reserveDevice: (...args) => store.reserveDevice(...args),
    releaseDevice: (...args) => store.releaseDevice(...args),
  };
  return { store: gated, atPut, release };
}
