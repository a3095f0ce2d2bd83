/**
 * `explain`: for a pod, a claim, a volume or a node, the whole chain pod → claim → PV → volume →
 * desired node → record → EC2 → VolumeAttachment → node, and one sentence on why it is or is not
 * attached and what happens next. Pure: the caller reads the cluster, the store and EC2.
 */
import { buildDesiredState } from '../../core/desired-state.js';
import type { KubePod, KubePodVolume } from '../../core/kube.js';
import { plan } from '../../core/plan.js';
import { isPodTerminated, podKey, podRefOf } from '../../core/pods.js';
import { claimLookup, resolvePodVolume, type ClaimLookup } from '../../core/pod-volumes.js';
import { ebsVolumeId, pvLookup, volumeOfPv } from '../../core/volume-sources.js';
import type { NodeName, VolumeId } from '../../core/types.js';
import { explainPair, type PlanView } from './pair.js';
import { claimNameOf, podStep, sourceSteps } from './steps.js';
import type { Chain, ExplainInputs, ExplainTarget, Explanation, Step } from './types.js';
import { sentenceFor } from './verdicts.js';

function describeTarget(target: ExplainTarget): string {
  if (target.kind === 'pod') return `pod ${target.namespace}/${target.name}`;
  if (target.kind === 'pvc') return `PVC ${target.namespace}/${target.name}`;
  return target.kind === 'volume' ? `volume ${target.volumeId}` : `node ${target.name}`;
}

interface Context {
  view: PlanView;
  lookup: ClaimLookup;
}

function chainOf(
  ctx: Context,
  steps: Step[],
  volumeId: VolumeId | undefined,
  nodeName: NodeName | undefined,
  code: Chain['code'],
  reason: string,
): Chain {
  const sentence = sentenceFor(code, { volume: volumeId ?? '-', node: nodeName ?? '-', reason });
  return { ...(volumeId === undefined ? {} : { volumeId }), ...(nodeName === undefined ? {} : { nodeName }), steps, code, sentence };
}

/** One pod volume: its source, then either why it was skipped or the (volume, node) chain. */
function podVolumeChain(ctx: Context, pod: KubePod, volume: KubePodVolume): Chain | undefined {
  const ref = podRefOf(pod)!;
  const resolved = resolvePodVolume(ref, volume, ctx.lookup);
  if (resolved.kind === 'ignored') return undefined;
  const chain = podVolumeChainOf(ctx, pod, volume, resolved.kind === 'ebs' ? resolved.volumeId : undefined);
  return { ...chain, podVolume: `${podKey(ref)} volume ${volume.name}` };
}

function podVolumeChainOf(ctx: Context, pod: KubePod, volume: KubePodVolume, volumeId: VolumeId | undefined): Chain {
  const ref = podRefOf(pod)!;
  const steps = [podStep(pod), ...sourceSteps(pod, volume, ctx.lookup)];
  if (volumeId !== undefined) steps.push({ kind: 'volume', says: volumeId });
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return chainOf(ctx, steps, volumeId, undefined, 'pod-not-scheduled', `pod ${podKey(ref)} is not scheduled to a node yet`);
  if (isPodTerminated(pod)) return chainOf(ctx, steps, volumeId, nodeName, 'pod-terminated', `pod ${podKey(ref)} has terminated`);
  const skipped = ctx.view.desired.skipped.find((s) => podKey(s.pod) === podKey(ref) && s.podVolumeName === volume.name);
  if (skipped) {
    steps.push({ kind: 'desired', says: `none: ${skipped.reason}` });
    return chainOf(ctx, steps, skipped.volumeId ?? volumeId, nodeName, skipped.code, skipped.reason);
  }
  const wanted = ctx.view.desired.attachments.find((a) => a.volumeId === volumeId && a.nodeName === nodeName);
  steps.push({
    kind: 'desired',
    says: `${nodeName} (instance ${wanted?.instanceId ?? 'unknown'}), for pod(s) ${(wanted?.pods ?? []).map(podKey).join(', ')}`,
  });
  const pair = explainPair(ctx.view, volumeId!, nodeName);
  return { volumeId: volumeId!, nodeName, steps: [...steps, ...pair.steps], code: pair.code, sentence: pair.sentence };
}

function podChains(ctx: Context, pod: KubePod): Chain[] {
  return (pod.spec?.volumes ?? []).flatMap((volume) => podVolumeChain(ctx, pod, volume) ?? []);
}

/** A (volume, node) no scheduled pod accounts for: what the record and EC2 say, and what the plan does. */
function pairChain(ctx: Context, volumeId: VolumeId, nodeName: NodeName): Chain {
  const wanted = ctx.view.desired.attachments.find((a) => a.volumeId === volumeId && a.nodeName === nodeName);
  const desired: Step = {
    kind: 'desired',
    says: wanted ? `${nodeName}, for pod(s) ${wanted.pods.map(podKey).join(', ')}` : `not desired on ${nodeName}`,
  };
  const pair = explainPair(ctx.view, volumeId, nodeName);
  return {
    volumeId,
    nodeName,
    steps: [{ kind: 'volume', says: volumeId }, desired, ...pair.steps],
    code: pair.code,
    sentence: pair.sentence,
  };
}

const podsOf = (ctx: Context) => ctx.view.inputs.snapshot.pods.filter((pod) => podRefOf(pod) !== undefined);

/** Pairs of the record and the desired state not yet covered by a chain. */
function remainingPairs(ctx: Context, chains: Chain[], keep: (volumeId: VolumeId, nodeName: NodeName) => boolean): Chain[] {
  const covered = new Set(chains.map((c) => `${c.volumeId ?? ''} ${c.nodeName ?? ''}`));
  const pairs = new Set<string>();
  for (const record of ctx.view.inputs.actual.values())
    for (const nodeName of Object.keys(record.attachments)) pairs.add(`${record.volumeId} ${nodeName}`);
  for (const op of [...ctx.view.inputs.actual.values()].flatMap((r) =>
    Object.values(r.operations).map((o) => `${r.volumeId} ${o.nodeName}`),
  ))
    pairs.add(op);
  for (const a of ctx.view.desired.attachments) pairs.add(`${a.volumeId} ${a.nodeName}`);
  return [...pairs]
    .filter((pair) => !covered.has(pair))
    .map((pair) => pair.split(' ') as [VolumeId, NodeName])
    .filter(([volumeId, nodeName]) => keep(volumeId, nodeName))
    .sort()
    .map(([volumeId, nodeName]) => pairChain(ctx, volumeId, nodeName));
}

function chainsFor(ctx: Context, target: ExplainTarget): Chain[] {
  if (target.kind === 'pod') {
    const pod = podsOf(ctx).find((p) => p.metadata.namespace === target.namespace && p.metadata.name === target.name);
    if (!pod) return [chainOf(ctx, [], undefined, undefined, 'pod-not-found', `the cluster has no pod ${target.namespace}/${target.name}`)];
    const chains = podChains(ctx, pod);
    return chains.length > 0
      ? chains
      : [
          chainOf(
            ctx,
            [podStep(pod)],
            undefined,
            pod.spec?.nodeName,
            'no-ebs-volumes',
            `pod ${target.namespace}/${target.name} uses no EBS volume`,
          ),
        ];
  }
  if (target.kind === 'pvc') {
    const users = podsOf(ctx).filter((pod) => pod.metadata.namespace === target.namespace);
    const chains = users.flatMap((pod) =>
      (pod.spec?.volumes ?? []).filter((v) => claimNameOf(pod, v) === target.name).flatMap((v) => podVolumeChain(ctx, pod, v) ?? []),
    );
    return chains.length > 0 ? chains : claimOnly(ctx, target.namespace, target.name);
  }
  if (target.kind === 'volume') {
    const chains = podsOf(ctx).flatMap((pod) => podChains(ctx, pod).filter((c) => c.volumeId === target.volumeId));
    const rest = remainingPairs(ctx, chains, (volumeId) => volumeId === target.volumeId);
    const all = [...chains, ...rest];
    return all.length > 0 ? all : [pairless(ctx, target.volumeId)];
  }
  const chains = podsOf(ctx)
    .filter((pod) => pod.spec?.nodeName === target.name)
    .flatMap((pod) => podChains(ctx, pod));
  const all = [...chains, ...remainingPairs(ctx, chains, (_v, nodeName) => nodeName === target.name)];
  if (all.length > 0) return all;
  const known = ctx.view.desired.nodes.has(target.name);
  return [
    chainOf(
      ctx,
      [],
      undefined,
      target.name,
      known ? 'not-desired' : 'unknown',
      known ? '' : `the cluster has no node ${target.name} and no record names it`,
    ),
  ];
}

/** A claim no pod uses: its binding, and whether its volume is attached anywhere. */
function claimOnly(ctx: Context, namespace: string, name: string): Chain[] {
  const steps = sourceSteps(
    { metadata: { namespace, name: '' }, spec: { volumes: [] } },
    { name, persistentVolumeClaim: { claimName: name } },
    ctx.lookup,
  );
  const pvName = ctx.lookup.pvc(namespace, name)?.spec?.volumeName;
  const pv = pvName === undefined ? undefined : ctx.lookup.pv(pvName);
  const volume = pv === undefined ? undefined : ebsVolumeId(volumeOfPv(pv));
  const pairs = volume === undefined ? [] : remainingPairs(ctx, [], (volumeId) => volumeId === volume);
  if (pairs.length > 0) return pairs.map((chain) => ({ ...chain, steps: [...steps, ...chain.steps] }));
  const reason = ctx.lookup.pvc(namespace, name) ? '' : `the cluster has no PVC ${namespace}/${name}`;
  return [chainOf(ctx, steps, volume, undefined, reason === '' ? 'not-desired' : 'unknown', reason)];
}

function pairless(ctx: Context, volumeId: VolumeId): Chain {
  const observation = ctx.view.inputs.observations.volumes?.get(volumeId);
  const ec2 = observation === undefined ? 'not asked' : observation.exists ? 'exists' : 'does not exist';
  return chainOf(
    ctx,
    [
      { kind: 'volume', says: volumeId },
      { kind: 'ec2', says: ec2 },
    ],
    volumeId,
    undefined,
    'not-desired',
    '',
  );
}

/** The one sentence for the whole object: a single chain's, or how many are attached and the first that is not. */
function verdictOf(chains: Chain[]): string {
  if (chains.length === 1) return chains[0]!.sentence;
  const attached = chains.filter((c) => c.code === 'attached').length;
  const first = chains.find((c) => c.code !== 'attached' && c.code !== 'not-desired');
  const head = `${attached} of ${chains.length} volumes are attached and reported`;
  if (!first) return `${head}; nothing else is needed.`;
  const sentence = first.sentence.charAt(0).toLowerCase() + first.sentence.slice(1);
  const which = first.volumeId ?? first.podVolume ?? '';
  return `${head}; ${which}${first.nodeName ? ` on ${first.nodeName}` : ''}: ${sentence}`;
}

export function explain(target: ExplainTarget, inputs: ExplainInputs): Explanation {
  const desired = buildDesiredState(inputs.snapshot, { complete: inputs.complete });
  const planned = plan(desired, inputs.actual, inputs.observations, inputs.now, inputs.config);
  const ctx: Context = {
    view: { inputs, desired, planned, pvNamed: pvLookup(inputs.snapshot.pvs) },
    lookup: claimLookup(inputs.snapshot.pvcs, inputs.snapshot.pvs),
  };
  const chains = chainsFor(ctx, target);
  return { target: describeTarget(target), chains, verdict: verdictOf(chains), attached: chains.every((c) => c.code === 'attached') };
}
