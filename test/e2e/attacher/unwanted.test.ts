/**
 * EC2 shows a volume attached where no VolumeAttachment wants it (here: someone stripped our
 * finalizer and the object went, so we never detached). kcm decides what is attached, so the pass
 * only reports it: the `UnwantedAttachments` metric and a log line naming volume and instance.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Metric } from '../../../lambda/observability/metric-names.js';
import type { World } from '../../../sandbox/world.js';
import { readEmf } from '../../observability/emf.js';
import { useAttacherWorld, type AttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';

let world: World;
let kcm: KcmPlayer;
let fullPass: AttacherWorld['fullPass'];
let stdout = '';
let warnings: string[] = [];
// Before the world's controller is built: metrics on, as in Lambda (the test runner turns them off
// everywhere else), and the logger on the global console (Powertools' dev mode), where it is read.
beforeEach(() => {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.stubEnv('POWERTOOLS_DEV', 'true');
});
useAttacherWorld((started) => ({ world, kcm, fullPass } = started), { env: { POWERTOOLS_LOG_LEVEL: 'WARN' } });
beforeEach(() => {
  stdout = '';
  warnings = [];
  vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warnings.push(String(line)));
  // Dev mode prints the EMF documents with console.log too.
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void (stdout += `${String(line)}\n`));
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const unwantedMetric = () =>
  readEmf(stdout)
    .filter((m) => m.name === Metric.UnwantedAttachments)
    .map((m) => m.value);
const unwantedLogs = () =>
  warnings.map((line) => JSON.parse(line) as Record<string, unknown>).filter((log) => String(log.message).includes('no VolumeAttachment'));

describe('attacher mode: attached where no VolumeAttachment wants it', () => {
  it('is counted and logged with its volume and instance, and left attached', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await fullPass();
    expect(unwantedMetric()).toEqual([0]);
    world.kube.components.update('VolumeAttachment', undefined, name, (va) => ({ ...va, metadata: { ...va.metadata, finalizers: [] } }));
    world.kube.components.delete('VolumeAttachment', undefined, name);
    stdout = '';
    warnings = [];

    await fullPass();

    expect(unwantedMetric()).toEqual([1]);
    expect(unwantedLogs()).toEqual([
      expect.objectContaining({ level: 'WARN', volumeId: volume.volumeId, nodeName: 'node-1', instanceId: world.nodes[0]!.instanceId }),
    ]);
    expect(world.ec2.counters().calls.DetachVolume).toBeUndefined();
  });
});
