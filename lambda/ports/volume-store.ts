/**
 * The persisted actual state and operation locks (DESIGN §5). Implemented on DynamoDB
 * by `adapters/dynamodb`. Every write is a compare-and-swap on `VolumeRecord.version`.
 */
import type { InstanceId, VolumeId, VolumeRecord } from '../core/types.js';

/** Result of a conditional write. `conflict`: the item changed underneath you; re-read and re-decide. */
export type WriteResult = { ok: true; record: VolumeRecord } | { ok: false; reason: 'conflict' };

/** An item that is not a valid volume record (missing fields, wrong types, foreign data). */
export interface CorruptItem {
  key: string;
  problem: string;
}

export interface ReadResult {
  records: Map<VolumeId, VolumeRecord>;
  corrupt: CorruptItem[];
  /** A scan returns the controller-state item with the volumes (absent when there is none, or it is unreadable). */
  controllerState?: ControllerState;
}

/** Controller-wide bookkeeping kept beside the volume items. */
export interface ControllerState {
  /** When the last full verification against EC2 ran (epoch ms); drives the sync period. */
  lastVerifiedAt?: number;
  /** Set once the actual state has been seeded from the cluster (takeover from kube-controller-manager). */
  seededAt?: number;
  /** When the last complete pass (every list read, every volume described) started: covered passes are measured from it. */
  completeAt?: number;
  /** The rolling slice the next covered verification describes (core/verification.ts `rollingTargets`). */
  slice?: number;
  /** A takeover still under way: what earlier invocations already seeded and verified. */
  takeover?: TakeoverProgress;
  version: number;
}

/**
 * A takeover goes through the claimed volumes in id order, a step at a time; each finished step
 * moves `through` on, so the next invocation starts after it instead of asking EC2 again.
 */
export interface TakeoverProgress {
  /** When its first step started: the verification it amounts to is as old as that. */
  startedAt: number;
  /** Every claimed volume with an id up to this one is seeded and verified. */
  through?: VolumeId;
  /** The pass working on it, until its invocation ends: other passes leave the takeover to it meanwhile. */
  holder?: { passId: string; until: number };
}

/**
 * Who holds a device name on an instance: an attach operation of some invocation, until its
 * lease ends (or a name EC2 called "in use", kept off the list for a while).
 */
export interface DeviceHolder {
  volumeId: VolumeId;
  operationId: string;
  /** Epoch ms; the reservation is void from then on. */
  expiresAt: number;
}

export interface VolumeStore {
  /** The record, or undefined when no item exists. Throws `CorruptItemError` for an unreadable item. */
  get(volumeId: VolumeId): Promise<VolumeRecord | undefined>;
  /** Batch read (BatchGetItem, unprocessed keys retried). The map is in the order of `volumeIds`; missing ids are absent. */
  getMany(volumeIds: VolumeId[]): Promise<ReadResult>;
  /** Every record, all pages (optionally parallel segments). Throws on any failed page: never a short list. */
  scan(options?: { segments?: number }): Promise<ReadResult>;
  /**
   * Stores `next` if the stored version still equals `next.version` (0: the item must not exist),
   * writing version + 1. With `fence`, the stored item must also still hold operation `id` under
   * lock key `lockKey` (a taken-over holder's late write is rejected).
   */
  put(next: VolumeRecord, fence?: { lockKey: string; operationId: string }): Promise<WriteResult>;
  /** Deletes the item if its version is unchanged and it holds no attachment and no operation. */
  remove(record: VolumeRecord): Promise<{ ok: true } | { ok: false; reason: 'conflict' }>;
  getControllerState(): Promise<ControllerState>;
  /** Compare-and-swap on `ControllerState.version` like `put`. */
  putControllerState(next: ControllerState): Promise<{ ok: boolean }>;
  /** The device names reserved on an instance whose reservation is still live at `now` (strongly consistent). */
  reservedDevices(instanceId: InstanceId, now: number): Promise<Map<string, DeviceHolder>>;
  /**
   * Reserves `device` on `instanceId` for `holder` in one conditional write: it succeeds only when
   * no live reservation of another operation holds the name (an expired one, or one of operation
   * `takeFrom` — by default the holder's own — is replaced). False when another holder has it.
   */
  reserveDevice(instanceId: InstanceId, device: string, holder: DeviceHolder, now: number, takeFrom?: string): Promise<boolean>;
  /** Frees `device` if operation `operationId` still holds it; a no-op otherwise. */
  releaseDevice(instanceId: InstanceId, device: string, operationId: string): Promise<void>;
}
