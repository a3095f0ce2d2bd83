/**
 * The `VolumeStore` port on DynamoDB: one item per volume, every write a compare-and-swap on its
 * version (see conditions.ts), the item schema in item.ts. The client is injected, never built here.
 */
import type { InstanceId, VolumeId, VolumeRecord } from '../../core/types.js';
import type { ControllerState, DeviceHolder, ReadResult, VolumeStore, WriteResult } from '../../ports/volume-store.js';
import { storeContext, type DynamoVolumeStoreOptions, type StoreContext } from './context.js';
import { getControllerState, putControllerState } from './controller-state.js';
import { releaseDevice, reserveDevice, reservedDevices } from './devices.js';
import { getVolume, getVolumes, scanVolumes } from './reads.js';
import { putVolume, removeVolume, type Fence } from './writes.js';

export type { DynamoVolumeStoreOptions } from './context.js';
export { CorruptItemError, InvalidWriteError, UnprocessedKeysError, VolumeStoreError } from './errors.js';

export class DynamoVolumeStore implements VolumeStore {
  private readonly ctx: StoreContext;

  constructor(options: DynamoVolumeStoreOptions) {
    this.ctx = storeContext(options);
  }

  get(volumeId: VolumeId): Promise<VolumeRecord | undefined> {
    return getVolume(this.ctx, volumeId);
  }

  getMany(volumeIds: VolumeId[]): Promise<ReadResult> {
    return getVolumes(this.ctx, volumeIds);
  }

  scan(options: { segments?: number } = {}): Promise<ReadResult> {
    return scanVolumes(this.ctx, options.segments);
  }

  put(next: VolumeRecord, fence?: Fence): Promise<WriteResult> {
    return putVolume(this.ctx, next, fence);
  }

  remove(record: VolumeRecord): Promise<{ ok: true } | { ok: false; reason: 'conflict' }> {
    return removeVolume(this.ctx, record);
  }

  getControllerState(): Promise<ControllerState> {
    return getControllerState(this.ctx);
  }

  putControllerState(next: ControllerState): Promise<{ ok: boolean }> {
    return putControllerState(this.ctx, next);
  }

  reservedDevices(instanceId: InstanceId, now: number): Promise<Map<string, DeviceHolder>> {
    return reservedDevices(this.ctx, instanceId, now);
  }

  reserveDevice(instanceId: InstanceId, device: string, holder: DeviceHolder, now: number, takeFrom?: string): Promise<boolean> {
    return reserveDevice(this.ctx, instanceId, device, holder, now, takeFrom);
  }

  releaseDevice(instanceId: InstanceId, device: string, operationId: string): Promise<void> {
    return releaseDevice(this.ctx, instanceId, device, operationId);
  }
}
