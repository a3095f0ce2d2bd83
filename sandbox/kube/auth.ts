/**
 * Bearer-token authentication. Like a default cluster's system:public-info-viewer role,
 * `/version` and the health checks answer without credentials; everything else needs the token.
 */
import { timingSafeEqual } from 'node:crypto';

const publicPaths = new Set(['/version', '/version/', '/healthz', '/livez', '/readyz']);

export function isPublicPath(path: string): boolean {
  return publicPaths.has(path);
}

export function isAuthorized(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from((match[1] as string).trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
