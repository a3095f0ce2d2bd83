/** Finding resources by id, with EC2's NotFound errors. */
import { ec2Errors } from '../protocol/errors.js';
import type { SandboxInstance, SandboxVolume, World } from './model.js';

export function getVolume(world: World, volumeId: string): SandboxVolume {
  const volume = world.volumes.get(volumeId);
  if (!volume) throw ec2Errors.volumeNotFound([volumeId]);
  return volume;
}

export function getInstance(world: World, instanceId: string): SandboxInstance {
  const instance = world.instances.get(instanceId);
  if (!instance) throw ec2Errors.instanceNotFound([instanceId]);
  return instance;
}

/**
 * All of `ids`, or one NotFound error naming every missing id (as EC2's Describe calls do).
 * With `namesEveryId` the error names every requested id instead, as some other EC2
 * implementations do: a client must not take the named ids as proof that they are missing.
 */
export function getAll<T>(ids: string[], table: ReadonlyMap<string, T>, notFound: (missing: string[]) => Error, namesEveryId = false): T[] {
  const missing = ids.filter((id) => !table.has(id));
  if (missing.length > 0) throw notFound([...new Set(namesEveryId ? ids : missing)]);
  return [...new Set(ids)].map((id) => table.get(id) as T);
}
