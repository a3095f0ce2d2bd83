/**
 * Lists that are complete or fail. Every page is fetched with `limit`/`continue`; a
 * continue token the server no longer honours (410 Gone, reason Expired: the snapshot it
 * pointed into was compacted) restarts that list from the first page, a bounded number of
 * times. Any other failure, or a server that never stops paging, is an IncompleteReadError:
 * the caller never sees a silently partial list (an empty list is not "no pods").
 */
import { IncompleteReadError } from '../../ports/cluster.js';
import { describeApiError, isExpired } from './api-errors.js';

export interface PageRequest {
  limit: number;
  _continue?: string;
}

export interface Page<T> {
  items?: T[];
  /** `resourceVersion`: the revision the list is read at (the same on every page of one list). */
  metadata?: { _continue?: string; resourceVersion?: string };
}

export interface PagingOptions {
  /** Items per page (the API server caps and may return fewer). */
  pageSize: number;
  /** Restarts after an expired continue token before giving up. */
  maxRestarts: number;
  /** A list longer than this many pages is treated as a server fault. */
  maxPages: number;
}

export const DEFAULT_PAGING: PagingOptions = { pageSize: 500, maxRestarts: 3, maxPages: 10_000 };

export async function listAllPages<T>(
  what: string,
  fetchPage: (request: PageRequest) => Promise<Page<T>>,
  options: PagingOptions = DEFAULT_PAGING,
): Promise<T[]> {
  for (let restarts = 0; ; restarts++) {
    try {
      return await readEveryPage(what, fetchPage, options);
    } catch (error) {
      if (error instanceof IncompleteReadError) throw error;
      if (!isExpired(error)) {
        throw new IncompleteReadError(`listing ${what} failed: ${describeApiError(error)}`, { cause: error });
      }
      if (restarts >= options.maxRestarts) {
        throw new IncompleteReadError(`listing ${what}: continue token expired ${restarts + 1} times; gave up`, { cause: error });
      }
    }
  }
}

async function readEveryPage<T>(what: string, fetchPage: (request: PageRequest) => Promise<Page<T>>, options: PagingOptions): Promise<T[]> {
  const items: T[] = [];
  let token: string | undefined;
  for (let page = 1; page <= options.maxPages; page++) {
    const response = await fetchPage(token === undefined ? { limit: options.pageSize } : { limit: options.pageSize, _continue: token });
    if (!Array.isArray(response.items)) {
      throw new IncompleteReadError(`listing ${what}: page ${page} has no items array`);
    }
    items.push(...response.items);
    token = response.metadata?._continue;
    if (token === undefined || token === '') return items;
  }
  throw new IncompleteReadError(`listing ${what}: more than ${options.maxPages} pages; refusing an unbounded list`);
}
