/**
 * Continue tokens: opaque to clients, here base64url JSON of the snapshot revision the list
 * started at, the last key served, and (for fault injection) the number of the next page.
 */
import { errors } from './status.js';

export interface ContinueToken {
  rv: number;
  start: string;
  page: number;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start, p: token.page })).toString('base64url');
}

export function decodeContinue(value: string): ContinueToken {
  try {
    const raw = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown; p?: unknown };
    if (raw.v === 'meta.k8s.io/v1' && typeof raw.rv === 'number' && typeof raw.start === 'string' && typeof raw.p === 'number') {
      return { rv: raw.rv, start: raw.start, page: raw.p };
    }
  } catch {
    // fall through to the same error a real server gives for a token it cannot read
  }
  throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

/** Which page of a list a request asks for: 1 without `continue`, else the token's page. */
export function pageOf(url: URL): number {
  const value = url.searchParams.get('continue');
  if (!value) return 1;
  try {
    return decodeContinue(value).page;
  } catch {
    return 0;
  }
}
