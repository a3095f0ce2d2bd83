/**
 * An SQS batch that runs out of time answers with a partial batch response: the records whose
 * pass failed or never finished go back to SQS, the finished ones are acknowledged and never
 * redone. Passes here take clock time (a manual clock moves), never real time.
 */
import type { Context, SQSBatchResponse } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaHandler } from '../../lambda/handlers/middleware.js';
import { BatchProgress, runTargets } from '../../lambda/handlers/sqs-batch.js';
import { clusterEventHandler } from '../../lambda/handlers/sqs-handler.js';
import { InvocationTimeout } from '../../lambda/handlers/timeout-answer.js';
import { type Target, targetKey } from '../../lambda/reconcile/pass/types.js';
import { ManualClock } from '../../sandbox/clock.js';
import { kubernetesEvent, lambdaContext, sqsBatch } from '../../sandbox/events.js';
import { recordingController, type RecordingController } from '../support/recording-controller.js';

const podEvent = (name: string) => kubernetesEvent({ kind: 'Pod', namespace: 'default', name }, 'Scheduled', 'm', Date.UTC(2026, 2, 2));
const failures = (response: SQSBatchResponse) => response.batchItemFailures.map((f) => f.itemIdentifier);

/** A Lambda context whose remaining time counts down on `clock`. */
function contextOn(clock: ManualClock, timeoutMs: number): Context {
  const end = clock.now() + timeoutMs;
  return { ...lambdaContext(timeoutMs), getRemainingTimeInMillis: () => Math.max(0, end - clock.now()) };
}

let clock: ManualClock;
let controller: RecordingController;
/** Every targeted pass takes `passMs` of clock time; pod `broken`'s pass fails. */
function slowController(passMs: number): RecordingController {
  const recording = recordingController({ failTargets: ['pod/default/broken'] });
  const run = recording.targetedPass.bind(recording);
  return {
    ...recording,
    clock,
    targetedPass: async (target, budget) => {
      clock.advance(passMs);
      return run(target, budget);
    },
  };
}

beforeEach(() => {
  clock = new ManualClock();
});

describe('an SQS batch with more passes than time', () => {
  it('acknowledges the records whose pass finished, reports failed and unstarted ones, and starts no pass in the last 5 s of its budget', async () => {
    controller = slowController(20_000);
    const handler = clusterEventHandler(controller);
    // 60 s invocation: the batch's budget ends 10 s before; each pass moves the shared clock 20 s.
    const batch = sqsBatch(['db-0', 'db-1', 'broken', 'db-3', 'db-0', 'db-5', 'db-6', 'DB_bad'].map(podEvent));

    const response = await handler(batch, contextOn(clock, 60_000));

    expect(controller.targets).toEqual(['pod/default/db-0', 'pod/default/db-1', 'pod/default/broken']);
    // m-3: its pass failed; m-4, m-6, m-7: never started; m-5 shares db-0's finished pass; m-8 is bad input.
    expect(failures(response)).toEqual(['m-3', 'm-4', 'm-6', 'm-7']);
  });

  it('with no time at all, reports every valid record and runs nothing', async () => {
    controller = slowController(1);
    const response = await clusterEventHandler(controller)(sqsBatch([podEvent('db-0'), podEvent('db-1')]), contextOn(clock, 9_000));

    expect(controller.targets).toEqual([]);
    expect(failures(response)).toEqual(['m-1', 'm-2']);
  });
});

describe('the progress a timeout answers with', () => {
  it('lists the records of passes still running and of failed passes, never those of finished ones', async () => {
    const progress = new BatchProgress();
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const run = async (target: Target) => {
      if (targetKey(target) === 'pod/default/slow') await hanging;
      return targetKey(target) === 'pod/default/broken' ? ({ ok: false, error: 'store down' } as const) : ({ ok: true } as const);
    };
    const accepted = ['fast', 'slow', 'broken', 'fast'].map((name, i) => ({
      messageId: `m-${i + 1}`,
      event: { kind: 'pod' as const, namespace: 'default', name },
    }));

    const done = runTargets(accepted, (event) => event, run, { progress, hasTime: () => true });
    await new Promise((resolve) => setImmediate(resolve));

    expect(failures(progress.response())).toEqual(['m-2', 'm-3']);
    release();
    expect(failures(await done)).toEqual(['m-3']);
  });
});

describe("middy's early timeout", () => {
  /** A handler stuck in a call that ignores the abort. */
  const hangUntilAborted = () => new Promise<string>(() => undefined);

  it('answers with what the handler says it finished', async () => {
    const handler = lambdaHandler(recordingController(), hangUntilAborted, { onTimeout: () => 'partial answer' });
    // 2 s left: middy's early timeout (2 s before the end) fires at once.
    await expect(handler({}, lambdaContext(2_000))).resolves.toBe('partial answer');
  });

  it('fails the invocation when the handler cannot say', async () => {
    const handler = lambdaHandler(recordingController(), hangUntilAborted);
    await expect(handler({}, lambdaContext(2_000))).rejects.toThrow(InvocationTimeout);
  });
});
