/** What the local EC2 needs of a clock: the time. Every delay is computed from it on each request, never from timers. */
export interface Clock {
  now(): number;
}
