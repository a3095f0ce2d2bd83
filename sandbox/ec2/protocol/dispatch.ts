/**
 * One EC2 Query request, start to finish: credentials present → action known → counted →
 * injected latency/failure → throttle → IAM (when modelled) → DryRun → settle the world → the KMS
 * grant of an encrypted volume's attach → handle → (read lag) → XML
 * (or, for an answer the faults lose, nothing).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ACTIONS } from '../actions/index.js';
import type { Counters } from '../counters.js';
import type { Faults } from '../faults.js';
import type { ActionHooks } from '../hooks.js';
import { settle } from '../state/lifecycle.js';
import type { World } from '../state/model.js';
import type { Throttle } from '../throttle.js';
import { accessKeyOf, authorize, authorizeKeyUse, type IamModel } from '../iam/authorize.js';
import { Ec2Error, ec2Errors } from './errors.js';
import { optionalBool, parseParams, type Params } from './form.js';
import { renderError, renderResponse } from './xml.js';

export interface Ec2Request {
  body: string;
  query: string;
  /** SigV4 in the header, or a presigned query (X-Amz-Credential). Signatures are not verified. */
  authorization: string | undefined;
}

export interface Ec2Reply {
  status: number;
  requestId: string;
  body: string;
  /** The answer is lost: the server drops the connection instead of sending it (Faults.loseAnswers). */
  lost?: true;
}

export interface Dispatcher {
  world: World;
  faults: Faults;
  throttle: Throttle;
  counters: Counters;
  hooks?: ActionHooks;
  /** IAM in front of EC2; without it every credential may do everything. */
  iam?: IamModel;
}

export async function dispatch(parts: Dispatcher, request: Ec2Request): Promise<Ec2Reply> {
  const requestId = randomUUID();
  // Reading the form cannot fail (URLSearchParams takes any text), so it happens once, outside the error handling.
  const params = parseParams(request.body, request.query);
  const reply = await answer(parts, params, request.authorization, requestId);
  const action = params.get('Action');
  return action !== undefined && parts.faults.takeLostAnswer(action) ? { ...reply, lost: true } : reply;
}

async function answer(parts: Dispatcher, params: Params, authorization: string | undefined, requestId: string): Promise<Ec2Reply> {
  try {
    return { status: 200, requestId, body: await run(parts, params, authorization, requestId) };
  } catch (error) {
    const ec2Error = error instanceof Ec2Error ? error : ec2Errors.internal();
    if (!(error instanceof Ec2Error)) console.error('local EC2: unexpected error', error);
    return { status: ec2Error.status, requestId, body: renderError(ec2Error, requestId) };
  }
}

async function run(
  { world, faults, throttle, counters, hooks, iam }: Dispatcher,
  params: Params,
  authorization: string | undefined,
  requestId: string,
): Promise<string> {
  if (!authorization && !params.has('X-Amz-Credential')) throw ec2Errors.missingAuth();
  const action = params.get('Action');
  if (!action) throw ec2Errors.missingAction();
  const definition = ACTIONS.get(action);
  if (!definition) throw ec2Errors.invalidAction(action);
  counters.recordCall(action, params);
  const latency = faults.latencyFor(action);
  if (latency > 0) await sleep(latency);
  const injected = faults.takeFailure(action);
  if (injected) {
    counters.recordInjected(action);
    throw injected;
  }
  if (!throttle.admit(action, definition.category)) {
    counters.recordThrottled(action);
    throw ec2Errors.throttled();
  }
  const accessKey = accessKeyOf(authorization, params);
  // A dry run answers DryRunOperation only with the permission it asks about.
  if (iam) await authorize(iam, accessKey, action, params, world);
  if (optionalBool(params, 'DryRun') === true) throw ec2Errors.dryRun();
  const now = settle(world);
  if (iam && action === 'AttachVolume') await authorizeKeyUse(iam, accessKey, params, world);
  const succeeded = faults.beforeAction(action, params, world, now);
  hooks?.before(action, params, now);
  const answer = definition.handle({ params, world, now });
  succeeded();
  hooks?.after(action, params, now);
  return renderResponse(action, requestId, faults.lagged(action, answer, world, now));
}
