/**
 * The actual state a takeover would have written, put straight into DynamoDB through the real
 * store (conditional puts, in parallel), so a large size starts in steady state without paying
 * for a takeover pass first: every attachment `attached`, mounted and reported, and the
 * controller state marked seeded and verified.
 */
import pLimit from 'p-limit';
import { uniqueNameFor } from '../lambda/core/volume-id.js';
import type { VolumeRecord } from '../lambda/core/types.js';
import type { VolumeStore } from '../lambda/ports/volume-store.js';
import type { GeneratedCluster } from '../sandbox/generate/model.js';

export async function seedActualState(store: VolumeStore, cluster: GeneratedCluster, now: number): Promise<number> {
  const nodes = new Map(cluster.nodes.map((n) => [n.name, n]));
  const records = new Map<string, VolumeRecord>();
  for (const volume of cluster.volumes) {
    records.set(volume.volumeId, {
      volumeId: volume.volumeId,
      uniqueName: uniqueNameFor(volume.volumeId),
      accessModes: volume.accessModes,
      multiAttach: volume.multiAttach,
      attachments: {},
      operations: {},
      backoff: {},
      version: 0,
    });
  }
  for (const a of cluster.attached) {
    const record = records.get(a.volumeId) as VolumeRecord;
    record.attachments[a.nodeName] = {
      nodeName: a.nodeName,
      instanceId: nodes.get(a.nodeName)?.instanceId ?? '',
      state: 'attached',
      device: a.device,
      mounted: true,
      reported: true,
      since: now,
    };
  }
  const limit = pLimit(32);
  const attached = [...records.values()].filter((r) => Object.keys(r.attachments).length > 0);
  const written = await Promise.all(attached.map((r) => limit(() => store.put(r))));
  const failed = written.filter((w) => !w.ok).length;
  if (failed > 0) throw new Error(`seeding the actual state: ${failed} conditional puts failed`);
  const state = await store.getControllerState();
  const marked = await store.putControllerState({ ...state, seededAt: now, lastVerifiedAt: now });
  if (!marked.ok) throw new Error('seeding the controller state failed');
  return attached.length;
}
