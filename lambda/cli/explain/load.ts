/**
 * What explain reads: the whole cluster and the state table (as a full pass does), then EC2 about
 * exactly the volumes and instances the object's chains name — "what EC2 says now".
 */
import type { Controller } from '../../composition.js';
import { parseProviderId } from '../../core/provider-id.js';
import type { SeenInstance } from '../../ports/block-storage.js';
import { explain } from './explain.js';
import type { ExplainInputs, ExplainTarget, Explanation } from './types.js';

export async function loadAndExplain(controller: Controller, target: ExplainTarget): Promise<Explanation> {
  const { cluster, store, blockStorage } = controller.ports;
  const [snapshot, scanned] = await Promise.all([cluster.readAll(), store.scan()]);
  const base: ExplainInputs = {
    snapshot,
    complete: true,
    actual: new Map(scanned.records),
    observations: {},
    now: controller.clock.now(),
    config: controller.config.plan,
    tagScheme: controller.config.tagScheme,
  };
  const first = explain(target, base);
  const volumeIds = [...new Set(first.chains.flatMap((c) => (c.volumeId === undefined ? [] : [c.volumeId])))];
  const instanceIds = new Set<string>();
  for (const volumeId of volumeIds)
    for (const a of Object.values(base.actual.get(volumeId)?.attachments ?? {})) instanceIds.add(a.instanceId);
  for (const chain of first.chains) {
    const instanceId = chain.nodeName === undefined ? undefined : explainNodeInstance(snapshot, chain.nodeName);
    if (instanceId !== undefined) instanceIds.add(instanceId);
  }
  const [volumes, seen] = await Promise.all([
    volumeIds.length === 0 ? new Map() : blockStorage.describeVolumes(volumeIds),
    instanceIds.size === 0 ? new Map<string, SeenInstance | 'missing'>() : blockStorage.observeInstances([...instanceIds]),
  ]);
  const instances = new Map([...seen].map(([id, s]) => [id, s === 'missing' ? ('missing' as const) : (s.state ?? ('missing' as const))]));
  const instanceTags = new Map([...seen].flatMap(([id, s]) => (s === 'missing' || s.tags === undefined ? [] : [[id, s.tags] as const])));
  return explain(target, { ...base, observations: { volumes, instances }, instanceTags, now: controller.clock.now() });
}

function explainNodeInstance(snapshot: ExplainInputs['snapshot'], nodeName: string): string | undefined {
  const parsed = parseProviderId(snapshot.nodes.find((n) => n.metadata.name === nodeName)?.spec?.providerID);
  return parsed.ok ? parsed.instanceId : undefined;
}
