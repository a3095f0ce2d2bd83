/** `explain` as text: each chain as labelled steps, then the verdict. */
import type { Explanation, StepKind } from './types.js';

const LABELS: Record<StepKind, string> = {
  pod: 'pod',
  claim: 'claim',
  pv: 'volume source',
  volume: 'volume',
  desired: 'desired node',
  record: 'record',
  ec2: 'EC2 now',
  volumeAttachment: 'VolumeAttachment',
  node: 'node',
};
const WIDTH = Math.max(...Object.values(LABELS).map((label) => label.length));

export function formatExplanation(explained: Explanation): string {
  const lines = [`explain ${explained.target}`];
  for (const chain of explained.chains) {
    const where = chain.nodeName === undefined ? '' : ` on ${chain.nodeName}`;
    lines.push('', `${chain.volumeId ?? explained.target}${where}  [${chain.code}]`);
    for (const step of chain.steps) lines.push(`  ${LABELS[step.kind].padEnd(WIDTH)}  ${step.says}`);
    if (explained.chains.length > 1) lines.push(`  → ${chain.sentence}`);
  }
  lines.push('', explained.verdict);
  return lines.join('\n');
}
