/**
 * The attacher story (`npm start -- --mode attacher`) runs to exit 0, and its first chapter is the
 * takeover from a csi-attacher sidecar that really attached: shadow agrees, fence, adopt with no
 * EC2 mutating call and no VolumeAttachment write (issue #12).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('the attacher demo story', () => {
  it('passes every check, the takeover chapter first', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'sandbox/demo/main.ts', '--mode', 'attacher'], {
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    const chapters = stdout.split('\n').filter((line) => line.startsWith('== Chapter'));
    expect(chapters[0]).toContain('Taking over from the csi-attacher sidecar: shadow, fence, adopt');
    for (const claim of [
      'the shadow pass was fenced and every VolumeAttachment the sidecar handles `agrees`',
      'no AttachVolume or DetachVolume from the shadow or the adopt pass',
      'no VolumeAttachment write from the adopt pass',
      'the store records every sidecar attachment as attached',
      // Issue 29: the watcher alone moves a StatefulSet pod's volume.
      'the watcher alone did it: no full pass, no cluster event ran',
    ])
      expect(stdout).toContain(`✓ ${claim}`);
    expect(stdout).not.toContain('✗');
    expect(stdout).toContain('Result: every invariant held and every check passed (exit 0).');
  }, 120_000);
});
