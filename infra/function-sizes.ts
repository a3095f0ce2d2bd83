/**
 * Memory and timeout of the two kinds of function, without CDK types so the bench can run the full
 * pass as a function of this size would (bench/child-runner.ts).
 *
 * The full pass lists the whole cluster and verifies every volume. Its memory is chosen from the
 * bench's curve (README, "Performance"): Lambda gives a function CPU in proportion to its memory,
 * one whole vCPU at 1,769 MB, and a pass over thousands of nodes is mostly CPU, so a smaller
 * function takes longer in proportion for about the same cost; and at 1,024 MB a pass over 10,000
 * nodes peaks at 790–870 MB, too close to the limit for a cluster that grows. The stack setting
 * `fullPassMemoryMb` overrides it. A targeted pass touches a few volumes. Both stop on their own
 * before the deadline and leave unfinished attaches to a later pass.
 */
export interface FunctionSize {
  memoryMb: number;
  timeoutSeconds: number;
}

export const FULL_PASS_SIZE: FunctionSize = { memoryMb: 1769, timeoutSeconds: 300 };
/**
 * The watcher holds its watches for five minutes: a watcher killed mid-operation leaves that
 * volume locked until its own end plus the lease margin, the same bound as the full pass's; a
 * longer life would only lengthen that wait (the next watcher starts within its last minute and
 * it steps down at once, so overlap does not grow with it). Its memory is chosen from the bench
 * (README, "The watcher"): it mostly waits, so it is billed for time at its size.
 */
export const WATCHER_SIZE: FunctionSize = { memoryMb: 512, timeoutSeconds: 300 };
export const TARGETED_PASS_SIZE: FunctionSize = { memoryMb: 512, timeoutSeconds: 120 };
