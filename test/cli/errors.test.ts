/** Bare SDK and Node errors reach the operator with what to do about them. */
import { describe, expect, it } from 'vitest';
import { describeError } from '../../lambda/cli/errors.js';
import { loadConfig } from '../../lambda/config.js';

const config = loadConfig({ TABLE_NAME: 'volumes', AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000' }, 'local');
const named = (name: string, message: string, extra: object = {}) => Object.assign(new Error(message), { name, ...extra });

describe('describeError', () => {
  it.each([
    [
      'a missing table',
      named('ResourceNotFoundException', 'Requested resource not found'),
      'the state table volumes does not exist at http://127.0.0.1:8000: create it with `ebs-attach-detach init`',
    ],
    [
      'missing credentials',
      named('CredentialsProviderError', 'Could not load credentials from any providers'),
      'Local sandbox: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to any value (e.g. local)',
    ],
    [
      'refused credentials',
      named('UnrecognizedClientException', 'The security token included in the request is invalid'),
      'AWS refused the credentials',
    ],
    [
      'a sandbox not running',
      new Error('fetch failed', { cause: named('Error', 'connect ECONNREFUSED 127.0.0.1:4566', { code: 'ECONNREFUSED' }) }),
      'is the local sandbox running',
    ],
    [
      'an unreadable kubeconfig',
      named('Error', "ENOENT: no such file or directory, open '/tmp/kube/config'", { code: 'ENOENT' }),
      'KUBECONFIG',
    ],
  ])('%s: the error, then a hint', (_name, error, hint) => {
    const [first, second] = describeError(error, config).split('\n');
    expect(first).toBe(`error: ${error.message}`);
    expect(second).toContain(`hint: `);
    expect(second).toContain(hint);
  });

  it('an error without a known hint is said as it is', () => {
    expect(describeError(new Error('boom'), config)).toBe('error: boom');
    expect(describeError('text thrown', config)).toBe('error: text thrown');
  });
});
