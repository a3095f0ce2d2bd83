/**
 * The EC2 budget kept in the table: every invocation (a client of its own) draws from one GCRA
 * state per action, so together they never exceed burst + rate·window.
 */
import { describe, expect, it } from 'vitest';
import { budgetKey, DynamoRateBudget } from '../../lambda/adapters/dynamodb/rate-budget.js';
import type { BucketSize } from '../../lambda/adapters/ec2/rate-limit.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { T0 } from './builders.js';

const local = useLocalDynamo();
const SIZE: BucketSize = { ratePerSecond: 5, burst: 3 };

/** A clock the test moves; sleeps are recorded and return at once. */
function testClock(start = T0) {
  const clock = { at: start, sleeps: [] as number[] };
  return Object.assign(clock, {
    now: () => clock.at,
    sleep: (ms: number) => (clock.sleeps.push(ms), Promise.resolve()),
  });
}

async function budgets(count: number, clock = testClock(), size = SIZE) {
  const { tableName, store } = await local.freshTable();
  const one = () =>
    new DynamoRateBudget({
      client: local.running().newClient(),
      tableName,
      region: 'eu-west-1',
      sizes: { AttachVolume: size, DetachVolume: size },
      clock,
    });
  return { all: Array.from({ length: count }, one), store, clock };
}

describe('the shared EC2 budget', () => {
  it('20 invocations reserving at one instant get the burst at once, then one slot per interval each', async () => {
    const { all } = await budgets(20);
    const slots = await Promise.all(all.map((budget) => budget.reserve('AttachVolume')));
    expect(slots.sort((a, b) => a - b)).toEqual([T0, T0, T0, ...Array.from({ length: 17 }, (_, i) => T0 + 200 * (i + 1))]);
  });

  it('over any window the tokens never exceed burst + rate × window (acquirers arriving over 10 s)', async () => {
    const { all, clock } = await budgets(5, testClock(), { ratePerSecond: 4, burst: 6 });
    const slots: number[] = [];
    for (let round = 0; round < 10; round++) {
      clock.at = T0 + round * 1_000 + (round % 3) * 137;
      slots.push(...(await Promise.all(all.flatMap((budget) => [budget.reserve('AttachVolume'), budget.reserve('AttachVolume')]))));
    }
    slots.sort((a, b) => a - b);
    for (const start of slots) {
      for (const windowMs of [0, 500, 2_000, 30_000]) {
        const inWindow = slots.filter((s) => s >= start && s <= start + windowMs).length;
        expect(inWindow).toBeLessThanOrEqual(6 + (4 * windowMs) / 1000);
      }
    }
  });

  it('each action has its own budget', async () => {
    const { all } = await budgets(1);
    const budget = all[0]!;
    for (let i = 0; i < 3; i++) await budget.reserve('AttachVolume');
    expect(await budget.reserve('DetachVolume')).toBe(T0);
    expect(await budget.reserve('AttachVolume')).toBe(T0 + 200);
  });

  it('acquire waits on the clock until its slot', async () => {
    const { all, clock } = await budgets(2);
    for (let i = 0; i < 4; i++) await all[i % 2]!.acquire('DetachVolume');
    expect(clock.sleeps).toEqual([200]);
  });

  it('a stale guess of the stored TAT costs a retry, never a token handed out twice', async () => {
    const { all, clock } = await budgets(2);
    const [a, b] = [all[0]!, all[1]!];
    await a.reserve('AttachVolume');
    for (let i = 0; i < 4; i++) await b.reserve('AttachVolume');
    expect(await a.reserve('AttachVolume')).toBe(clock.at + 600);
  });

  it("the store's scan passes over budget items", async () => {
    const { all, store } = await budgets(1);
    await all[0]!.reserve('AttachVolume');
    expect(budgetKey('eu-west-1', 'AttachVolume')).toBe('budget#ec2#eu-west-1#AttachVolume');
    expect(await store.scan()).toMatchObject({ records: new Map(), corrupt: [] });
  });
});
