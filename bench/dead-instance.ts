/**
 * Issue 12's figure for the bench: instance terminated → the replacement pod's volume attached on
 * its new node, per operating mode, played by sandbox/dead-instance.ts through the real handlers.
 * Story time is the sandbox clock's (it includes upstream's 40 s before the node turns NotReady);
 * wall time is real time less the clock's jump over those 40 s.
 */
import { measureDeadInstance, passesAt, type DeadInstanceFigures } from '../sandbox/dead-instance.js';

export type { DeadInstanceFigures } from '../sandbox/dead-instance.js';

/** Both modes for a terminated instance, and attacher mode with only the EC2 event's pass (no Scheduled event forwarded). */
export async function measureDeadInstances(log: (line: string) => void): Promise<DeadInstanceFigures[]> {
  const runs = [
    { mode: 'controller', state: 'terminated' },
    { mode: 'attacher', state: 'terminated' },
    { mode: 'attacher', state: 'terminated', forwardScheduled: false },
    { mode: 'controller', state: 'stopped' },
    { mode: 'attacher', state: 'stopped' },
  ] as const;
  const figures: DeadInstanceFigures[] = [];
  for (const run of runs) {
    const measured = await measureDeadInstance(run);
    figures.push(measured);
    log(`  ${deadInstanceLine(measured)}`);
  }
  return figures;
}

export function deadInstanceLine(f: DeadInstanceFigures): string {
  const s = (ms: number | undefined) => (ms === undefined ? 'not attached' : `${(ms / 1000).toFixed(1)} s`);
  const passes = f.passes.map((p) => p.trigger).join(' + ');
  return `${f.mode} mode, instance ${f.state}${f.forwardScheduled === false ? ' (Scheduled event not forwarded)' : ''}: attached after ${s(f.storyMs)} story time (${s(f.wallMs)} wall), during ${passesAt(f).join(' and ') || '–'}; passes: ${passes}; ${f.kubeRequests} Kubernetes requests, ${f.ec2Calls} EC2 calls; DetachVolume ${f.detaches.length === 0 ? 'none (EC2 released it)' : f.detaches.map((d) => (d.force ? 'forced' : 'plain')).join(', ')}`;
}
