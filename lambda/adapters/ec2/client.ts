/**
 * The EC2 client the composition root builds once per cold start and injects into the adapter.
 * In Lambda neither endpoint nor credentials are set: the SDK finds the regional endpoint and the
 * role's credentials itself. Local runs name the local EC2 and its static credentials.
 */
import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';

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
}

/**
 * Why standard mode with 5 attempts: EC2 throttles per account and Region with token buckets
 * shared by every caller in the account (the CSI driver, consoles, other controllers). Standard
 * mode retries RequestLimitExceeded, 5xx and socket errors with exponential backoff and jitter
 * (throttling delays start at 500 ms); five attempts ride out a few seconds of throttling and stay
 * well inside a pass. Beyond that the adapter reports `throttled` and the operation's persisted
 * backoff takes over. Not `adaptive`: its client-side limiter drops this process's whole sending
 * rate after a throttle (against the local EC2, two throttles made the next calls wait seconds
 * each), which would stall a pass's reads; pacing of mutating calls is done by rate-limit.ts.
 */
export const EC2_RETRY_DEFAULTS = { retryMode: 'standard', maxAttempts: 5 } as const;

export function createEc2Client(options: Ec2ClientOptions): EC2Client {
  return new EC2Client({
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
}
