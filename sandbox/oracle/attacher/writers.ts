/**
 * "Never two writers" (issue 28): every AttachVolume, DetachVolume and VolumeAttachment write is
 * recorded with who made it (the controller, or the csi-attacher sidecar) and who held the
 * sidecar's leader-election Lease at that instant. A write by anyone but the holder of that moment
 * is a violation: the Lease is what keeps one attacher a standby, so a write beside it is a second
 * writer. Read synchronously in the stand-ins' hooks, so the holder is exactly the one the write met.
 *
 * Who wrote: the controller's VolumeAttachment writes are API requests (the request hook); the
 * simulated sidecar writes through the sandbox's component client, which `sidecarKube` wraps; EC2
 * calls are told apart by the caller the script says is running (its story runs them one at a time).
 */
import type { LocalEc2 } from '../../ec2/server.js';
import type { KubeSandbox } from '../../kube/index.js';

export type Writer = 'controller' | 'sidecar';

export interface Write {
  at: number;
  writer: Writer;
  what: string;
  /** The Lease's holder when the write happened ('' when it had none, undefined when there was no Lease). */
  holder: string | undefined;
  /** The guide's step it happened in. */
  phase: string;
}

type Kube = Pick<KubeSandbox, 'get' | 'list' | 'components' | 'onRequest'>;

export class WriterOracle {
  readonly writes: Write[] = [];
  /** Who is running now, for the EC2 calls (the script's story runs one caller at a time). */
  running: Writer | undefined;
  private phase = 'setup';
  private readonly phases: { phase: string; controller: number; sidecar: number }[] = [{ phase: 'setup', controller: 0, sidecar: 0 }];
  private readonly stops: (() => void)[];

  constructor(
    private readonly kube: Kube,
    ec2: Pick<LocalEc2, 'onAction'>,
    private readonly lease: { namespace: string; name: string },
    /** Which writer a holder identity is. */
    private readonly writerOf: (holder: string) => Writer | undefined,
    private readonly now: () => number,
  ) {
    this.stops = [
      ec2.onAction({
        before: (action, params) => {
          if (action !== 'AttachVolume' && action !== 'DetachVolume') return;
          this.record(this.running ?? 'controller', `${action} ${params.get('VolumeId') ?? ''} ${params.get('InstanceId') ?? ''}`);
        },
      }),
      kube.onRequest({
        before: (info) => {
          if (info.resource !== 'volumeattachments' || info.name === undefined || !['patch', 'update'].includes(info.verb)) return;
          this.record('controller', `${info.verb} VolumeAttachment ${info.name}${info.subresource ? `/${info.subresource}` : ''}`);
        },
      }),
    ];
  }

  /** The sandbox, as the simulated sidecar sees it: its VolumeAttachment writes are recorded. */
  sidecarKube(): Pick<KubeSandbox, 'list' | 'get' | 'components'> {
    const { components, list, get } = this.kube;
    return {
      list,
      get,
      components: {
        ...components,
        update: (kind, namespace, name, change, subresource) => {
          if (kind === 'VolumeAttachment') this.record('sidecar', `update VolumeAttachment ${name}${subresource ? `/${subresource}` : ''}`);
          return components.update(kind, namespace, name, change, subresource);
        },
      },
    };
  }

  /** Writes made by someone other than the Lease's holder at that instant. */
  secondWriters(): Write[] {
    return this.writes.filter((w) => w.holder === undefined || this.writerOf(w.holder) !== w.writer);
  }

  /** The writes from now on belong to `phase` (a step of the guide). */
  enter(phase: string): void {
    this.phase = phase;
    this.phases.push({ phase, controller: 0, sidecar: 0 });
  }

  /** Writes per phase and writer, every phase entered, in order (zeros included). */
  byPhase(): { phase: string; controller: number; sidecar: number }[] {
    return this.phases.map((row) => ({ ...row }));
  }

  stop(): void {
    for (const stop of this.stops) stop();
  }

  private record(writer: Writer, what: string): void {
    const lease = this.kube.get('Lease', this.lease.namespace, this.lease.name) as { spec?: { holderIdentity?: string } } | undefined;
    const holder = lease === undefined ? undefined : (lease.spec?.holderIdentity ?? '');
    this.writes.push({ at: this.now(), writer, what, holder, phase: this.phase });
    this.phases.at(-1)![writer] += 1;
  }
}
