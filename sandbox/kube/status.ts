/**
 * `Status` objects, the body the API server sends with every error (and some successes).
 * Reasons and messages follow k8s.io/apimachinery/pkg/api/errors so that clients that
 * switch on `reason` (e.g. `Conflict`, `AlreadyExists`, `Expired`) behave as against a real server.
 */
import type { ResourceType } from './resources.js';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  code: number;
  details?: StatusDetails;
}

/** An error that the router turns into a `Status` response with `code`. */
export class ApiError extends Error {
  readonly status: Status;
  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
      ...(details ? { details } : {}),
    };
  }
  get code(): number {
    return this.status.code;
  }
}

/** The reason a real server uses for a bare HTTP code (used by fault injection). */
export function reasonForCode(code: number): string {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Expired',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return reasons[code] ?? 'Unknown';
}

function qualified(type: ResourceType): string {
  return type.group ? `${type.resource}.${type.group}` : type.resource;
}

function detailsOf(type: ResourceType, name: string): StatusDetails {
  return { name, ...(type.group ? { group: type.group } : {}), kind: type.resource };
}

export const errors = {
  notFound: (type: ResourceType, name: string) =>
    new ApiError(404, 'NotFound', `${qualified(type)} "${name}" not found`, detailsOf(type, name)),
  namespaceNotFound: (namespace: string) =>
    new ApiError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' }),
  alreadyExists: (type: ResourceType, name: string) =>
    new ApiError(409, 'AlreadyExists', `${qualified(type)} "${name}" already exists`, detailsOf(type, name)),
  conflict: (
    type: ResourceType,
    name: string,
    why = 'the object has been modified; please apply your changes to the latest version and try again',
  ) => new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(type)} "${name}": ${why}`, detailsOf(type, name)),
  invalid: (type: ResourceType, name: string, causes: StatusCause[]) =>
    new ApiError(422, 'Invalid', `${type.kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`, {
      ...detailsOf(type, name),
      kind: type.kind,
      causes,
    }),
  /** Upstream validates list/watch options into a 422 on the ListOptions kind of meta.k8s.io. */
  invalidQuery: (field: string, message: string) =>
    new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: Forbidden: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [{ reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field }],
    }),
  badRequest: (message: string) => new ApiError(400, 'BadRequest', message),
  unauthorized: () => new ApiError(401, 'Unauthorized', 'Unauthorized'),
  methodNotAllowed: (message: string) => new ApiError(405, 'MethodNotAllowed', message),
  unsupportedMediaType: (contentType: string) =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType})`,
    ),
  /** An expired continue token; like upstream, the Status carries a token to go on inconsistently. */
  expired: (inconsistentContinue?: string) => {
    const error = new ApiError(
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results, which may be inconsistent.',
    );
    if (inconsistentContinue) error.status.metadata.continue = inconsistentContinue;
    return error;
  },
  gone: (message: string) => new ApiError(410, 'Expired', message),
  tooLargeResourceVersion: (asked: number, current: number) =>
    new ApiError(504, 'Timeout', `Too large resource version: ${asked}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
  internal: (message: string) => new ApiError(500, 'InternalError', `Internal error occurred: ${message}`),
};

export function successStatus(type: ResourceType, name: string): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    message: '',
    reason: '',
    code: 200,
    details: detailsOf(type, name),
  };
}
