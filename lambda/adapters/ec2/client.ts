/**
 * The EC2 client the composition root builds once per cold start and injects into the adapter.
 * In Lambda neither endpoint nor credentials are set: the SDK finds the regional endpoint and the
 * role's credentials itself. Local runs name the local EC2 and its static credentials.
 */
import { EC2Client, type EC2ClientConfig, type ServiceInputTypes, type ServiceOutputTypes } from '@aws-sdk/client-ec2';
import type { FinalizeRequestMiddleware } from '@smithy/types';
import { withoutSdkLogger } from '../sdk-logger.js';
import { addNarrowDecoding } from './narrow-decode.js';
import { MUTATING_ACTIONS, type MutatingAction, type RateLimiter } from './rate-limit.js';

export interface Ec2ClientOptions {
  region: string;
  /** Attempts per call, the first included. */
  maxAttempts?: number;
  retryMode?: 'standard' | 'adaptive';
  /** Socket timeouts so a stalled connection becomes a retryable TimeoutError, not a hung pass. */
  requestTimeoutMs?: number;
  connectionTimeoutMs?: number;
  /** Local runs only; production leaves credentials to the default provider chain (the Lambda role). */
  credentials?: EC2ClientConfig['credentials'];
  /** Local runs only (the local EC2). */
  endpoint?: string;
  /** Paces AttachVolume/DetachVolume: every attempt, retries included, takes a token. */
  budget?: RateLimiter;
}

/**
 * Why standard mode with 5 attempts: EC2 throttles per account and Region with token buckets
 * shared by every caller in the account (the CSI driver, consoles, other controllers). Standard
 * mode retries RequestLimitExceeded, 5xx and socket errors with exponential backoff and jitter
 * (throttling delays start at 500 ms); five attempts ride out a few seconds of throttling and stay
 * well inside a pass. Beyond that the adapter reports `throttled` and the operation's persisted
 * backoff takes over. Not `adaptive`: its client-side limiter drops this process's whole sending
 * rate after a throttle (against the local EC2, two throttles made the next calls wait seconds
 * each), which would stall a pass's reads; pacing of mutating calls is the shared budget's (rate-limit.ts).
 */
export const EC2_RETRY_DEFAULTS = { retryMode: 'standard', maxAttempts: 5 } as const;

export function createEc2Client(options: Ec2ClientOptions): EC2Client {
  const client = new EC2Client({
    region: options.region,
    retryMode: options.retryMode ?? EC2_RETRY_DEFAULTS.retryMode,
    maxAttempts: options.maxAttempts ?? EC2_RETRY_DEFAULTS.maxAttempts,
    requestHandler: {
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      // Without this the SDK only logs a warning when requestTimeout passes and keeps waiting.
      throwOnRequestTimeout: true,
    },
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  });
  if (options.budget) addBudget(client, options.budget);
  addNarrowDecoding(client);
  return withoutSdkLogger(client);
}

const MUTATING_COMMANDS = new Map<string, MutatingAction>(MUTATING_ACTIONS.map((action) => [`${action}Command`, action]));

/** Per client: takes the token of one call's first attempt ahead of sending it (`prepay`). */
const prepayers = new WeakMap<EC2Client, (action: MutatingAction, input: object) => Promise<void>>();

/**
 * EC2 charges every request, retries included, to the action's bucket; so the token is taken below
 * the retry middleware (smithy's `retryMiddleware`), once per attempt, never once per call. A call
 * whose first token was taken ahead (`prepay`, by the command's input) spends that one on its first
 * attempt; its retries take their own.
 */
export function addBudget(client: EC2Client, budget: RateLimiter): void {
  const prepaid = new WeakSet<object>();
  const perAttempt: FinalizeRequestMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
    const action = MUTATING_COMMANDS.get(context.commandName ?? '');
    if (action && !prepaid.delete(args.input)) await budget.acquire(action);
    return next(args);
  };
  client.middlewareStack.addRelativeTo(perAttempt, {
    name: 'ec2MutatingBudget',
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    override: true,
  });
  prepayers.set(client, async (action, input) => {
    await budget.acquire(action);
    prepaid.add(input);
  });
}

/**
 * Takes the budget's token for the first attempt of the call with this `input` now, so the store's
 * write runs beside whatever else must precede the call instead of after it. A failure leaves the
 * token to the middleware (which then fails the call as before); a token never spent is simply
 * lost, which only ever paces us more, never less.
 */
export function prepay(client: EC2Client, action: MutatingAction, input: object): Promise<void> {
  return (prepayers.get(client)?.(action, input) ?? Promise.resolve()).catch(() => undefined);
}
