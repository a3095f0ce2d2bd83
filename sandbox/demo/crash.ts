/**
 * "A Lambda that dies mid-attach": the cluster-event handler runs in a child process that is
 * killed with SIGKILL as soon as EC2 has received its AttachVolume, so the intent is in DynamoDB,
 * EC2 goes on attaching, and nothing of the invocation's own follow-up ever happens.
 */
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { LocalStack } from '../local-stack.js';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

export interface CrashResult {
  killed: boolean;
  attachCallsSeen: number;
}

/** Holds AttachVolume in the server for `holdMs`, kills the invocation once the call arrived, then lets EC2 finish it. */
export async function invokeAndKillMidAttach(stage: LocalStack, event: unknown, holdMs = 400, timeoutMs = 20_000): Promise<CrashResult> {
  const attachesBefore = stage.ec2.counters().calls.AttachVolume ?? 0;
  stage.ec2.setLatency('AttachVolume', holdMs);
  const input = { env: stage.env, storyNow: stage.clock.now(), wallNow: Date.now(), factor: stage.clock.factor, event };
  const child = fork(CHILD, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, DEMO_CRASH_INPUT: JSON.stringify(input) },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const started = Date.now();
    let seen = 0;
    while (Date.now() - started < timeoutMs && child.exitCode === null) {
      seen = (stage.ec2.counters().calls.AttachVolume ?? 0) - attachesBefore;
      if (seen > 0) break;
      await sleep(5);
    }
    const killed = seen > 0 && child.kill('SIGKILL');
    if (!killed) child.kill('SIGKILL');
    await exited;
    await sleep(holdMs + 50);
    return { killed, attachCallsSeen: seen };
  } finally {
    stage.ec2.setLatency('AttachVolume', 0);
  }
}
