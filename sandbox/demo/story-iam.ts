/**
 * Day one in a real account: the local EC2 holds the controller to the role policy the stack
 * synthesizes. A volume provisioned without the tag the role requires is refused with EC2's own
 * UnauthorizedOperation, named by the pass report (UnauthorizedCalls, which the alarm watches),
 * `status` and `explain`, and attached once the tag is added; a volume encrypted with a
 * customer-managed key in `kmsKeyArns` attaches (the role may create EC2's grant on it).
 */
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { loadAndExplain } from '../../lambda/cli/explain/load.js';
import { statusRows } from '../../lambda/cli/format.js';
import type { GenOwner, GenPod } from '../generate/model.js';
import { GENERATED_CLUSTER } from '../cluster-tags.js';
import type { Actors } from './actors.js';
import { check, scheduledEvent, served, short, type Chapter } from './scene.js';

/** The customer-managed key the demo's stack names in `kmsKeyArns`. */
export const DEMO_KMS_KEY = 'arn:aws:kms:us-east-1:123456789012:key/6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

const WAIT_OUT_BACKOFF_MS = 125_000;

function podWithNewVolume(actors: Actors, name: string, options: { untagged?: boolean; kmsKeyId?: string }): GenPod {
  const node = actors.spareNode();
  actors.used.add(node.name);
  const owner: GenOwner = { kind: 'StatefulSet', name, uid: `${name}-uid` };
  actors.provision('payments', `data-${name}-0`, node.zone, options);
  return actors.schedule({ namespace: 'payments', name: `${name}-0`, app: name, owner, claims: [`data-${name}-0`] }, node);
}

export const dayOneInAws: Chapter = {
  title: 'Day one in AWS: the role policy decides (a missing tag, an encrypted volume)',
  async play({ director, actors, say }) {
    const pod = podWithNewVolume(actors, 'audit', { untagged: true });
    const volume = actors.volumeOf(pod);
    const node = actors.nodeOf(pod);
    say(`A volume is provisioned without the cluster's tags (the EBS CSI driver without k8sTagClusterId): ${volume.volumeId}.`);
    const refused = (await director.clusterEvents([scheduledEvent(pod)], 'Scheduled event')).reports;
    const failure = refused.flatMap((r) => r.results).find((r) => r.volumeId === volume.volumeId && r.kind === 'attach');
    const unauthorized = refused.reduce((n, r) => n + r.unauthorizedCalls, 0);
    say(`EC2 answers: ${failure?.detail.replace(/ Encoded authorization failure message: .*$/, ' …') ?? 'nothing'}`);
    const controller = director.stage.invocation();
    const { records } = await controller.ports.store.scan();
    const row = statusRows(records, controller.clock.now()).find((r) => r.volume === volume.volumeId);
    const explained = await loadAndExplain(controller, { kind: 'pod', namespace: pod.namespace, name: pod.name });
    say(`status: ${row?.state ?? 'no row'} on ${row?.node ?? '-'}, last error ${row?.lastError.split('.')[0] ?? '-'}.`);
    say(`explain: ${explained.verdict}`);
    say(`UnauthorizedCalls = ${unauthorized} in the pass's metrics: the UnauthorizedCalls alarm (threshold 1) fires.`);
    const checks = [
      check('EC2 refused the attach with UnauthorizedOperation', failure?.unauthorized === true, failure?.detail.slice(0, 80)),
      check('the pass counted it (UnauthorizedCalls, the alarm)', unauthorized >= 1, `${unauthorized}`),
      check(
        'status has a row for the volume, not attached, with the refusal',
        row?.lastError.startsWith('UnauthorizedOperation') === true,
        row?.state,
      ),
      check(
        'explain names the missing tag',
        explained.verdict.includes(`not authorized: volume ${volume.volumeId} lacks`) &&
          explained.verdict.includes(`ebs.csi.aws.com/cluster-name=${GENERATED_CLUSTER}`),
        explained.verdict,
      ),
    ];

    say(`An operator adds ebs.csi.aws.com/cluster-name=${GENERATED_CLUSTER} to the volume; the next try after the backoff attaches it.`);
    await director.stage.ec2Client.send(
      new CreateTagsCommand({ Resources: [volume.volumeId], Tags: [{ Key: 'ebs.csi.aws.com/cluster-name', Value: GENERATED_CLUSTER }] }),
    );
    director.stage.clock.advance(WAIT_OUT_BACKOFF_MS);
    await director.tick();
    checks.push(served(director, volume, node));

    const encrypted = podWithNewVolume(actors, 'vault', { kmsKeyId: DEMO_KMS_KEY });
    say(
      `${encrypted.name} on ${short(actors.nodeOf(encrypted))} mounts a volume encrypted with a customer-managed key named in kmsKeyArns.`,
    );
    await director.clusterEvents([scheduledEvent(encrypted)], 'Scheduled event');
    checks.push(served(director, actors.volumeOf(encrypted), actors.nodeOf(encrypted)));
    return checks;
  },
};
