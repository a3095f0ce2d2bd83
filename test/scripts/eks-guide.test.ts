/**
 * docs/eks.md followed literally in the sandbox (scripts/eks-guide.ts): the commands the guide's
 * marked blocks tell an operator to run are the commands run, and across deploy, shadow, fence,
 * adopt, handback, redeploy and takeover no one but the Lease's holder of that moment ever attaches,
 * detaches or writes a VolumeAttachment. The oracle itself fires on a second writer.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { WriterOracle } from '../../sandbox/oracle/attacher/writers.js';
import { deployContext, exportedVariables, guideCommands, runEksGuide, type GuideRun } from '../../scripts/eks-guide.js';

const doc = readFileSync(new URL('../../docs/eks.md', import.meta.url), 'utf8');

describe('the guide as written', () => {
  it('reads the marked blocks in order, continuation lines joined, comments dropped', () => {
    const commands = guideCommands(
      [
        '## One',
        '```sh eks-guide',
        '# a comment',
        'npx cdk deploy -c a=b \\',
        '  -c c=d',
        '',
        'sleep 5',
        '```',
        '```sh',
        'not ours',
        '```',
      ].join('\n'),
    );
    expect(commands).toEqual([
      { text: 'npx cdk deploy -c a=b -c c=d', section: 'One' },
      { text: 'sleep 5', section: 'One' },
    ]);
  });

  it('turns the placeholders of a deploy and the stack outputs of an export into what the sandbox has', () => {
    expect(deployContext('npx cdk deploy -c mode=attacher -c certificateAuthority=LS0tLS1CRUdJTi...')).toMatchObject({
      mode: 'attacher',
      certificateAuthority: expect.stringMatching(/^[A-Za-z0-9+/=]+$/) as unknown,
    });
    const exported = `export OPERATING_MODE=attacher TABLE_NAME="$(aws cloudformation describe-stacks --stack-name s --query "Stacks[0].Outputs[?OutputKey=='StateTableName'].OutputValue" --output text)"`;
    expect(exportedVariables(exported, { StateTableName: 'local-table' })).toEqual({
      OPERATING_MODE: 'attacher',
      TABLE_NAME: 'local-table',
    });
    expect(() => exportedVariables(exported, {})).toThrow(/stack output StateTableName/);
  });
});

describe('the oracle', () => {
  it('finds a write by anyone but the holder of that instant', () => {
    let holder = 'ebs-csi-controller-0';
    let hook: { before?: (action: string, params: Map<string, string>) => void } = {};
    const kube = {
      get: () => ({ spec: { holderIdentity: holder } }),
      list: () => [],
      components: {} as never,
      onRequest: () => () => undefined,
    };
    const ec2 = { onAction: (h: typeof hook) => ((hook = h), () => undefined) };
    const oracle = new WriterOracle(
      kube,
      ec2,
      { namespace: 'kube-system', name: 'l' },
      (h) => (h === 'us' ? 'controller' : 'sidecar'),
      () => 0,
    );
    oracle.running = 'controller';
    hook.before?.('AttachVolume', new Map([['VolumeId', 'vol-1']]));
    holder = 'us';
    hook.before?.('DetachVolume', new Map([['VolumeId', 'vol-1']]));
    expect(oracle.secondWriters()).toEqual([
      expect.objectContaining({ writer: 'controller', holder: 'ebs-csi-controller-0', what: 'AttachVolume vol-1 ' }),
    ]);
  });
});

describe('docs/eks.md followed literally against the local stack, with kcm, the kubelets and the sidecar', () => {
  let run: GuideRun;
  beforeAll(async () => {
    run = await runEksGuide();
  }, 240_000);

  it('runs exactly the commands of the guide, in its order', () => {
    expect(run.steps.map((s) => s.command)).toEqual(guideCommands(doc).map((c) => c.text));
  });

  it('never has two writers: every attach, detach and VolumeAttachment write is by the Lease holder of that instant', () => {
    expect(run.secondWriters).toEqual([]);
  });

  it('both writers worked, each in its turn: the sidecar until the fence, we until the handback, the sidecar until the takeover, then we', () => {
    const writers = run.byPhase.filter((p) => p.controller + p.sidecar > 0).map((p) => (p.controller > 0 ? 'controller' : 'sidecar'));
    const turns = writers.filter((w, i) => w !== writers[i - 1]);
    expect(turns).toEqual(['sidecar', 'controller', 'sidecar', 'controller']);
    expect(run.byPhase.every((p) => p.controller === 0 || p.sidecar === 0)).toBe(true);
  });

  it('each time the guide checks the Lease, we hold it; the shadow, the handback and the takeover say what the guide says', () => {
    expect(run.holdersRead).toEqual([run.identity, run.identity]);
    const output = (command: string) => run.steps.find((s) => s.command === command)?.output ?? '';
    expect(output('ebs-attach-detach shadow')).toMatch(/row\(s\): .*agrees/);
    expect(output('ebs-attach-detach handback')).toMatch(/^1\. writes off[\s\S]*\n3\. released the Lease[\s\S]*\(exit 0\)$/);
    expect(output('ebs-attach-detach takeover')).toMatch(/^writes on again in the store/);
  });
});
