/**
 * The Lambda entry files wire the controller once per execution environment, at import: from a
 * Lambda's environment they export a ready handler, and a missing setting fails the cold start
 * with a message naming it (Lambda logs it as the init error).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HANDLER_ENTRIES } from '../../infra/contracts.js';

const TEST_CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n').toString('base64');
const LAMBDA_ENV = {
  TABLE_NAME: 'volumes',
  AWS_REGION: 'eu-west-1',
  CLUSTER_NAME: 'prod',
  CLUSTER_ENDPOINT: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com',
  CLUSTER_CA: TEST_CA,
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe.each(Object.entries(HANDLER_ENTRIES))('the %s entry (%s)', (_name, entry) => {
  const load = () => import(/* @vite-ignore */ `../../${entry.replace(/\.ts$/, '.js')}`) as Promise<{ handler: unknown }>;

  it('exports a handler wired from the Lambda environment', async () => {
    for (const [key, value] of Object.entries(LAMBDA_ENV)) vi.stubEnv(key, value);
    expect(typeof (await load()).handler).toBe('function');
  });

  it('fails the cold start naming a missing setting', async () => {
    for (const [key, value] of Object.entries(LAMBDA_ENV)) vi.stubEnv(key, value);
    vi.stubEnv('CLUSTER_ENDPOINT', '');
    await expect(load()).rejects.toThrow(/CLUSTER_ENDPOINT: required in Lambda/);
  });
});
