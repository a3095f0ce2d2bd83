/**
 * `npx tsx scripts/cost.ts`: the README's monthly cost table, today's triggers against the watcher's,
 * at 100, 1,000 and 5,000 nodes, from published us-east-1 prices (arm64 Lambda, DynamoDB on-demand,
 * SQS standard, EventBridge custom events; free tiers left out). What is assumed is said so here;
 * what is measured names its run.
 */
import { FULL_PASS_SIZE, TARGETED_PASS_SIZE, WATCHER_SIZE } from '../infra/function-sizes.js';
import { DEFAULT_COVERAGE } from '../lambda/core/coverage.js';

const PRICE = {
  lambdaGbSecond: 0.0000133334, // arm64, first 7.5 billion GB-s a month
  lambdaRequest: 0.2 / 1e6,
  dynamoWrite: 0.625 / 1e6, // on-demand write request unit
  dynamoRead: 0.125 / 1e6, // on-demand read request unit
  sqsRequest: 0.4 / 1e6,
  eventBridgeEvent: 1.0 / 1e6, // custom events put on a bus
};
const MONTH_S = 30 * 86_400;
const TICKS = MONTH_S / 60; // the schedule's rate(1 minute)

/**
 * Measured (npm run bench, 20 ms added per request), 2026-11-28 on the shared 2-core machine: the
 * full pass at a sync, complete (every list, every volume described: today's every pass) and
 * covered (a live watcher covers the cluster: the store and the rolling slice, nothing listed).
 * 100 and 1,000 nodes: both in one run each, at load average 12–18 (upper bounds; the 1,000-node
 * complete pass, 96.2 s, is far above a quiet run's and is shown as measured). 5,000 nodes: the
 * covered pass measured at load 2–3; the complete pass did not finish within this run's cap, so it
 * is issue 30's figure (11.9 s, the same command, lightly loaded).
 */
const PASS_S: Record<number, { complete: number; covered: number }> = {
  100: { complete: 1.35, covered: 0.55 },
  1000: { complete: 96.2, covered: 3.1 },
  5000: { complete: 11.9, covered: 7.73 },
};
/** With the watcher, one pass in ten is complete (COMPLETE_PASS_SECONDS 600 at a pass a minute); the others are covered. */
const COMPLETE_SHARE = 60 / (DEFAULT_COVERAGE.completeEveryMs / 1000);
/** Assumed churn: each node sees one volume attach and one detach an hour (a pod moved or replaced). */
const CHANGES_PER_NODE_HOUR = 2;
/** Assumed, per change, either path: the targeted pass's DynamoDB (intent, device claim, budget token, outcome, release; BatchGetItem, GetItem). */
const CHANGE_WRITES = 5;
const CHANGE_READS = 2;
/** Assumed: today's event pass (512 MB) lasts 3 s a change: it waits for EC2's attach (2–5 s in AWS); one invocation a change. */
const EVENT_PASS_S = 3;
/** The watcher's store writes, from its settings: heartbeat every 10 s, a checkpoint per watched kind at most every 5 s. */
const WATCHER_WRITES_PER_MIN = (kinds: number) => 6 + kinds * 12;
/** Assumed: a tick that finds a live watcher reads the lease and ends in ~0.2 s. */
const IDLE_TICK_S = 0.2;

const gb = (mb: number) => mb / 1024;
const usd = (n: number) => `$${n.toFixed(2)}`;

function costs(nodes: number, kinds: number) {
  const changes = (nodes * CHANGES_PER_NODE_HOUR * MONTH_S) / 3600;
  const passS = PASS_S[nodes];
  if (passS === undefined) throw new Error(`no measured pass at ${nodes} nodes`);
  const passCost = (seconds: number) => seconds * gb(FULL_PASS_SIZE.memoryMb) * PRICE.lambdaGbSecond + PRICE.lambdaRequest;
  const fullPass = TICKS * passCost(passS.complete);
  const coveredPasses = TICKS * (COMPLETE_SHARE * passCost(passS.complete) + (1 - COMPLETE_SHARE) * passCost(passS.covered));
  const changeStore = changes * (CHANGE_WRITES * PRICE.dynamoWrite + CHANGE_READS * PRICE.dynamoRead);
  const eventPath =
    changes *
    (EVENT_PASS_S * gb(TARGETED_PASS_SIZE.memoryMb) * PRICE.lambdaGbSecond +
      PRICE.lambdaRequest +
      PRICE.eventBridgeEvent +
      3 * PRICE.sqsRequest);
  const watcher =
    MONTH_S * gb(WATCHER_SIZE.memoryMb) * PRICE.lambdaGbSecond +
    TICKS * (IDLE_TICK_S * gb(WATCHER_SIZE.memoryMb) * PRICE.lambdaGbSecond + PRICE.lambdaRequest) +
    TICKS * (WATCHER_WRITES_PER_MIN(kinds) * PRICE.dynamoWrite + PRICE.dynamoRead);
  return {
    changes,
    fullPass,
    coveredPasses,
    changeStore,
    eventPath,
    watcher,
    today: fullPass + eventPath + changeStore,
    withWatcher: coveredPasses + watcher + changeStore,
  };
}

console.log(
  '| nodes | changes a month (assumed) | today: a complete full pass every minute | with the watcher: full passes, 1 in 10 complete, the rest covered | DynamoDB of the changes (either way) | today: event path (exporter → EventBridge → SQS → Lambda) | watcher: always on, ticks, its store writes | today: total | with the watcher: total |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const nodes of [100, 1000, 5000]) {
  const c = costs(nodes, 2);
  console.log(
    `| ${nodes.toLocaleString('en')} | ${Math.round(c.changes).toLocaleString('en')} | ${usd(c.fullPass)} | ${usd(c.coveredPasses)} | ${usd(c.changeStore)} | ${usd(c.eventPath)} | ${usd(c.watcher)} | ${usd(c.today)} | ${usd(c.withWatcher)} |`,
  );
}
