/**
 * Every request to the API server goes through here: a client-side token bucket (like
 * client-go's QPS/burst limiter), a per-attempt timeout covering headers and body, and
 * retries with exponential backoff for 429, 5xx and transport failures (honouring
 * Retry-After). Other 4xx answers are returned at once: they are the caller's to handle.
 * Plugged into client-node as its `HttpLibrary`, so no call site can forget it.
 *
 * The pages after a list's first (requests with `continue`) are not paced: they are one consistent
 * read the server has already admitted, and pacing them made a 5,000-node pass wait some 10 s on
 * this client alone. Their retries are paced like any other request.
 */
import {
  IsomorphicFetchHttpLibrary,
  Observable,
  ResponseContext,
  SelfDecodingBody,
  type HttpLibrary,
  type RequestContext,
} from '@kubernetes/client-node';
import type { Clock } from '../../clock.js';

export interface RequestPolicy {
  /** Sustained requests per second of this client (kube-controller-manager runs 20). */
  qps: number;
  /** Requests allowed in a burst before the rate applies (kube-controller-manager runs 30). */
  burst: number;
  /** One attempt's limit, from sending the request to the last byte of the body. */
  timeoutMs: number;
  /** Attempts in total, the first included. */
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A longer Retry-After is cut to this: a Lambda pass cannot wait for minutes. */
  maxRetryAfterMs: number;
}

export const DEFAULT_REQUEST_POLICY: RequestPolicy = {
  qps: 20,
  burst: 30,
  timeoutMs: 15_000,
  maxAttempts: 4,
  backoffBaseMs: 250,
  backoffMaxMs: 4_000,
  maxRetryAfterMs: 10_000,
};

/** The controller's clock plus a source of jitter for retry delays. */
export interface PolicyClock extends Clock {
  random(): number;
}

export interface RetryNotice {
  method: string;
  url: string;
  attempt: number;
  delayMs: number;
  /** HTTP status, or the transport error's message. */
  cause: number | string;
}

/** A token bucket that lets callers reserve a token and wait for it (no busy polling). */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: PolicyClock,
  ) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`rate limit needs qps > 0 and burst >= 1, got ${qps}/${burst}`);
    this.tokens = burst;
    this.updatedAt = clock.now();
  }

  async take(): Promise<void> {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) * this.qps) / 1000);
    this.updatedAt = now;
    this.tokens -= 1;
    if (this.tokens < 0) await this.clock.sleep((-this.tokens * 1000) / this.qps);
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A list's later page: the request carries the continue token of an earlier answer. */
export function isContinuation(request: RequestContext): boolean {
  return request.getHttpMethod() === 'GET' && new URL(request.getUrl()).searchParams.has('continue');
}

export class PolicyHttpLibrary implements HttpLibrary {
  private readonly bucket: TokenBucket;

  constructor(
    private readonly policy: RequestPolicy,
    private readonly clock: PolicyClock,
    private readonly inner: HttpLibrary = new IsomorphicFetchHttpLibrary(),
    private readonly onRetry: (notice: RetryNotice) => void = () => undefined,
  ) {
    this.bucket = new TokenBucket(policy.qps, policy.burst, clock);
  }

  send(request: RequestContext): Observable<ResponseContext> {
    return new Observable(this.sendWithRetries(request));
  }

  private async sendWithRetries(request: RequestContext): Promise<ResponseContext> {
    const continuation = isContinuation(request);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(request, !(continuation && attempt === 1));
      const last = attempt >= this.policy.maxAttempts;
      if (outcome instanceof ResponseContext) {
        if (last || !isRetryableStatus(outcome.httpStatusCode)) return outcome;
        const hinted = retryAfterMs(outcome.headers['retry-after'], this.clock.now());
        await this.pause(request, attempt, outcome.httpStatusCode, hinted);
      } else {
        if (last) throw outcome;
        await this.pause(request, attempt, outcome.message, undefined);
      }
    }
  }

  /** One attempt; a transport failure or timeout comes back as an Error value. */
  private async attempt(request: RequestContext, paced: boolean): Promise<ResponseContext | Error> {
    if (paced) await this.bucket.take();
    request.setSignal(AbortSignal.timeout(this.policy.timeoutMs));
    try {
      const response = await this.inner.send(request).toPromise();
      // Read the body inside the attempt so the timeout and the retry cover it too.
      const text = await response.body.text();
      const body = new SelfDecodingBody(Promise.resolve(Buffer.from(text, 'utf8')));
      return new ResponseContext(response.httpStatusCode, response.headers, body);
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      const message = error instanceof Error ? error.message : String(error);
      return new Error(`${request.getHttpMethod()} ${request.getUrl()} failed: ${message}${cause}`, { cause: error });
    }
  }

  private async pause(request: RequestContext, attempt: number, cause: number | string, hintedMs: number | undefined): Promise<void> {
    const backoff = Math.min(this.policy.backoffMaxMs, this.policy.backoffBaseMs * 2 ** (attempt - 1));
    // Jitter keeps concurrent passes from retrying in lockstep.
    const jittered = backoff * (0.8 + 0.4 * this.clock.random());
    const delayMs = hintedMs === undefined ? jittered : Math.min(hintedMs, this.policy.maxRetryAfterMs);
    this.onRetry({ method: request.getHttpMethod(), url: request.getUrl(), attempt, delayMs, cause });
    await this.clock.sleep(delayMs);
  }
}
