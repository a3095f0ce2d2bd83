/**
 * EBS's capability rule in attacher mode, through the real handlers: a volume the EBS CSI driver
 * would refuse (filesystem ReadWriteMany, ReadOnlyMany) gets the refusal the sidecar writes, word
 * for word with its gRPC code, and no AttachVolume; an io2 Multi-Attach block volume asked for as
 * ReadWriteMany is attached to both nodes kcm asks for.
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld, type AttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';

let world: World;
let kcm: KcmPlayer;
let fullPass: AttacherWorld['fullPass'];
useAttacherWorld((started) => ({ world, kcm, fullPass } = started));

const attaches = () => world.ec2.counters().calls.AttachVolume ?? 0;

describe("attacher mode: EBS's capability rule", () => {
  it.each([
    ['a filesystem ReadWriteMany PV', ['ReadWriteMany'], 'Filesystem'],
    ['a ReadOnlyMany block PV', ['ReadOnlyMany'], 'Block'],
  ])('%s: the driver’s refusal as attachError (errorCode 3), no AttachVolume', async (_, accessModes, volumeMode) => {
    const volume = await world.createVolume();
    world.kube.components.update('PersistentVolume', undefined, volume.pvName, (pv) => ({
      ...pv,
      spec: { ...(pv as unknown as { spec: object }).spec, accessModes, volumeMode },
    }));
    const name = await kcm.attach(volume, 'node-1');

    await fullPass();

    expect(kcm.va(name)!.status).toMatchObject({
      attached: false,
      attachError: { message: 'rpc error: code = InvalidArgument desc = Volume capability not supported', errorCode: 3 },
    });
    expect(attaches()).toBe(0);
  });

  it('an io2 Multi-Attach volume asked for as ReadWriteMany block: attached to both nodes', async () => {
    const volume = await world.createVolume({ multiAttach: true });
    const names = [await kcm.attach(volume, 'node-1'), await kcm.attach(volume, 'node-2')];

    await fullPass();

    expect(names.map((name) => kcm.va(name)!.status?.attached)).toEqual([true, true]);
    expect(attaches()).toBe(2);
  });
});
