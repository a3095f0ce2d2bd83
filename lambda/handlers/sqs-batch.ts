/**
 * SQS batches of EventBridge events: validate each record on its own (one bad record never
 * spoils the batch), group the valid ones by target so each target gets one pass, and
 * report as failed only the records whose pass failed or never finished (retryable); invalid
 * records are dropped after being logged and counted, since retrying them cannot help. Records
 * whose pass finished are never reported, so SQS never delivers them again.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import pLimit from 'p-limit';
import { z } from 'zod';
import { groupByTarget } from './targets.js';
import type { Target } from '../reconcile/pass/types.js';
import { SqsBatchSchema, sqsRecordOf } from './event-schemas.js';

/** Targeted passes of one batch run side by side, each with its own bounded EC2 concurrency. */
const TARGET_CONCURRENCY = 4;

interface Rejection {
  messageId?: string;
  why: string;
}

export interface ParsedBatch<E> {
  accepted: { messageId: string; event: E }[];
  rejected: Rejection[];
}

export function parseSqsBatch<S extends z.ZodType>(event: unknown, schema: S): ParsedBatch<z.infer<S>> {
  const batch = SqsBatchSchema.safeParse(event);
  if (!batch.success) return { accepted: [], rejected: [{ why: `not an SQS batch: ${z.prettifyError(batch.error)}` }] };
  const recordSchema = sqsRecordOf(schema);
  const parsed: ParsedBatch<z.infer<S>> = { accepted: [], rejected: [] };
  for (const raw of batch.data.Records) {
    const record = recordSchema.safeParse(raw);
    if (record.success)
      parsed.accepted.push({ messageId: record.data.messageId, event: (record.data as unknown as { body: z.infer<S> }).body });
    else parsed.rejected.push({ messageId: messageIdOf(raw), why: z.prettifyError(record.error) });
  }
  return parsed;
}

function messageIdOf(raw: unknown): string | undefined {
  const id = (raw as { messageId?: unknown } | null)?.messageId;
  return typeof id === 'string' ? id : undefined;
}

/** What one target's pass came to: ok, or an error that makes its records retryable. */
export type TargetRun = (target: Target) => Promise<{ ok: true } | { ok: false; error: string }>;

/**
 * Which records of a batch still need a delivery: those behind a pass that failed or has not
 * finished (not started, or still running when the invocation ran out of time). Its response is
 * SQS's partial batch response at any moment, so an invocation cut short still answers correctly.
 */
export class BatchProgress {
  private readonly unfinished = new Map<string, 'pending' | 'failed'>();

  expect(messageIds: string[]): void {
    for (const id of messageIds) this.unfinished.set(id, 'pending');
  }

  finished(messageIds: string[], ok: boolean): void {
    for (const id of messageIds) {
      if (ok) this.unfinished.delete(id);
      else this.unfinished.set(id, 'failed');
    }
  }

  response(): SQSBatchResponse {
    return { batchItemFailures: [...this.unfinished.keys()].map((itemIdentifier) => ({ itemIdentifier })) };
  }
}

export interface RunOptions {
  progress: BatchProgress;
  /** Asked before each pass starts: false leaves its records for the next delivery. */
  hasTime: () => boolean;
}

/**
 * One pass per distinct target; the records behind a failed or unstarted pass are reported back
 * to SQS. Records that name no target of interest (`toTarget` → undefined) are acknowledged.
 */
export async function runTargets<E>(
  accepted: { messageId: string; event: E }[],
  toTarget: (event: E) => Target | undefined,
  run: TargetRun,
  { progress, hasTime }: RunOptions,
): Promise<SQSBatchResponse> {
  const items = accepted.flatMap(({ messageId, event }) => {
    const target = toTarget(event);
    return target === undefined ? [] : [{ target, item: messageId }];
  });
  const limit = pLimit(TARGET_CONCURRENCY);
  const groups = groupByTarget(items);
  for (const group of groups) progress.expect(group.items);
  await Promise.all(
    groups.map((group) =>
      limit(async () => {
        if (!hasTime()) return;
        const result = await run(group.target);
        progress.finished(group.items, result.ok);
      }),
    ),
  );
  return progress.response();
}
