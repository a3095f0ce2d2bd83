/**
 * The attacher story's takeover (docs/eks.md: shadow → fence → adopt): the simulated csi-attacher
 * sidecar attaches a few volumes; our fenced pass is a dry run whose shadow comparison must show
 * every VolumeAttachment `agrees`; the add-on is scaled to 0, we take its Lease, and the adopt
 * pass records the sidecar's attachments without an EC2 mutating call or a VolumeAttachment write.
 */
import type { GenOwner, GenPod } from '../generate/model.js';
import { SIDECAR_LEASE, sidecarOnKube } from '../lease-election.js';
import { createSidecar, runSidecarFor } from '../sidecar/sidecar.js';
import type { Director } from './director.js';
import { check, short, type Chapter } from './scene.js';
import { attachedByUs, mountedAfterKcm } from './va-checks.js';

const SECOND = 1000;
const ledger: GenOwner = { kind: 'StatefulSet', name: 'ledger', uid: 'ledger-uid' };

function leaseHolder(director: Director): string | undefined {
  const lease = director.stage.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as
    { spec?: { holderIdentity?: string } } | undefined;
  return lease?.spec?.holderIdentity;
}

const volumeAttachmentWrites = (director: Director) =>
  director.stage.kube.requests().filter((r) => r.resource === 'volumeattachments' && !['get', 'list', 'watch'].includes(r.verb)).length;

export const sidecarTakeover: Chapter = {
  title: 'Taking over from the csi-attacher sidecar: shadow, fence, adopt',
  async play({ director, actors, say }) {
    const { clock, config } = director.stage;
    const election = sidecarOnKube(director.stage.kube.kubeconfigPath, clock);
    const sidecar = createSidecar({ kube: director.stage.kube, ec2: director.stage.ec2Client, elector: election.elector });
    try {
      const pods: GenPod[] = [0, 1, 2].map((ordinal) => {
        const node = actors.spareNode(ordinal * 2);
        actors.used.add(node.name);
        return actors.statefulMember('ledger', ledger, ordinal, node);
      });
      say(`The EBS CSI add-on's csi-attacher holds the Lease ${SIDECAR_LEASE.namespace}/${SIDECAR_LEASE.name} and attaches:`);
      say(
        `kcm creates VolumeAttachments for ${pods.map((p) => `${p.name} on ${short(actors.nodeOf(p))}`).join(', ')}; the sidecar attaches them.`,
      );
      await runSidecarFor(sidecar, director.stage.clock, 30 * SECOND, () => director.kubelets());
      const bySidecar = pods.flatMap((pod) => [
        attachedByUs(director, actors.volumeOf(pod), actors.nodeOf(pod)),
        mountedAfterKcm(director, actors.volumeOf(pod), actors.nodeOf(pod)),
      ]);

      const mark = director.ec2Mutations.length;
      const shadowPass = (await director.tick('scheduled full pass (shadow: fenced, a dry run)')).reports[0];
      const shadow = shadowPass?.shadow;
      const agrees = shadow?.counts.agrees ?? 0;
      const rows = shadow?.rows.length ?? 0;
      say(
        `Our pass is fenced ("${shadowPass?.fenced ?? 'not fenced'}"), so it is a dry run: its shadow comparison has ${agrees} of ${rows} rows \`agrees\`.`,
      );

      say('The add-on is scaled to 0 replicas: nobody renews the Lease. 16 s later our pass finds it unchanged for 15 s and takes it.');
      clock.advance(16 * SECOND);
      const writesBefore = volumeAttachmentWrites(director);
      const adopt = (await director.tick('scheduled full pass (adopt)')).reports[0];
      const vaWrites = volumeAttachmentWrites(director) - writesBefore;
      const ec2Calls = director.ec2Mutations.length - mark;
      const records = (await director.stage.controller.ports.store.scan()).records;
      const recorded = pods.filter(
        (pod) => records.get(actors.volumeOf(pod).volumeId)?.attachments[actors.nodeOf(pod).name]?.state === 'attached',
      );
      say(
        `The adopt pass records the sidecar's ${recorded.length} attachments as ours: ${ec2Calls} EC2 mutating calls, ${vaWrites} VolumeAttachment writes.`,
      );
      return [
        ...bySidecar,
        check(
          'the shadow pass was fenced and every VolumeAttachment the sidecar handles `agrees`',
          shadowPass?.fenced !== undefined && rows >= pods.length && agrees === rows,
          JSON.stringify(shadow?.counts ?? 'no shadow report'),
        ),
        check(
          `we hold the Lease (${config.leaseFence?.identity ?? '?'}) and the adopt pass acted, converged, with nothing to do`,
          leaseHolder(director) === config.leaseFence?.identity &&
            adopt !== undefined &&
            adopt.fenced === undefined &&
            adopt.converged &&
            adopt.actions.length === 0,
          `holder ${leaseHolder(director) ?? 'none'}, ${adopt?.actions.length ?? '?'} action(s)`,
        ),
        check('no AttachVolume or DetachVolume from the shadow or the adopt pass', ec2Calls === 0, `${ec2Calls} call(s)`),
        check('no VolumeAttachment write from the adopt pass', vaWrites === 0, `${vaWrites} write(s)`),
        check(
          'the store records every sidecar attachment as attached',
          recorded.length === pods.length,
          `${recorded.length} of ${pods.length}`,
        ),
      ];
    } finally {
      await election.close();
    }
  },
};
