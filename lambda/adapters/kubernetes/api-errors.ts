/**
 * Reading the API server's answer out of client-node's `ApiException`: the HTTP code and
 * the `Status` object's `reason` (its body arrives as JSON text).
 */
import { ApiException } from '@kubernetes/client-node';

export interface ApiStatus {
  code: number;
  /** metav1.StatusReason, e.g. NotFound, AlreadyExists, Conflict, Expired. */
  reason?: string;
  message?: string;
}

function apiStatus(error: unknown): ApiStatus | undefined {
  if (!(error instanceof ApiException)) return undefined;
  const status: ApiStatus = { code: error.code };
  const body: unknown = typeof error.body === 'string' ? parseJson(error.body) : error.body;
  if (typeof body === 'object' && body !== null) {
    const { reason, message } = body as { reason?: unknown; message?: unknown };
    if (typeof reason === 'string') status.reason = reason;
    if (typeof message === 'string') status.message = message;
  }
  return status;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const isNotFound = (error: unknown): boolean => apiStatus(error)?.code === 404;
/** On an update: the resourceVersion we sent is stale. */
export const isConflict = (error: unknown): boolean => apiStatus(error)?.code === 409;
/** On a create: an object of that name exists (409, reason AlreadyExists). */
export const isAlreadyExists = (error: unknown): boolean => apiStatus(error)?.code === 409;

/** 422: e.g. a JSON patch whose `test` op failed (the object changed since it was read). */
export const isUnprocessable = (error: unknown): boolean => apiStatus(error)?.code === 422;

/** 410 Gone with reason Expired: the continue token of a paged list is too old. */
export function isExpired(error: unknown): boolean {
  const status = apiStatus(error);
  return status?.code === 410 && status.reason === 'Expired';
}

/** One line for logs and wrapped errors: `409 Conflict: the object has been modified`. */
export function describeApiError(error: unknown): string {
  const status = apiStatus(error);
  if (status === undefined) return error instanceof Error ? error.message : String(error);
  return [String(status.code), status.reason, status.message && `: ${status.message}`].filter(Boolean).join(' ').replace(' :', ':');
}
