/**
 * The invocations production sends, built exactly as the services shape them: EventBridge
 * Scheduler's input, EventBridge events (kubernetes-event-exporter's and EC2's) delivered in SQS
 * batches, and a Lambda context whose remaining time counts down. Ids are derived from the
 * content and the call order, never drawn at random, so a seeded run replays bit for bit.
 */
import { createHash } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  EC2_SOURCE,
  EC2_STATE_CHANGE_DETAIL_TYPE,
  EXPORTER_DETAIL_TYPE,
  EXPORTER_SOURCE,
  FULL_PASS_INPUT,
} from '../lambda/handlers/contracts.js';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';

let sequence = 0;

/** A UUID-shaped id from what it names and a per-process sequence number. */
function idOf(...parts: unknown[]): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([++sequence, ...parts]))
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface EventBridgeEvent<D> {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: D;
}

/** What EventBridge Scheduler sends the scheduled function. */
export function scheduledInput(): typeof FULL_PASS_INPUT {
  return { ...FULL_PASS_INPUT };
}

function envelope<D>(source: string, detailType: string, detail: D, at: number, resources: string[] = []): EventBridgeEvent<D> {
  const time = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    version: '0',
    id: idOf(source, detail, at),
    'detail-type': detailType,
    source,
    account: ACCOUNT,
    time,
    region: REGION,
    resources,
    detail,
  };
}

export interface InvolvedObject {
  kind: 'Pod' | 'Node';
  namespace?: string;
  name: string;
  uid?: string;
}

/** A core/v1 Event as kubernetes-event-exporter's EventBridge sink forwards it. */
export function kubernetesEvent(object: InvolvedObject, reason: string, message: string, at: number) {
  const stamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const detail = {
    metadata: {
      name: `${object.name}.${idOf(object, reason, at).slice(0, 8)}`,
      namespace: object.namespace ?? 'default',
      creationTimestamp: stamp,
    },
    involvedObject: { apiVersion: 'v1', ...object },
    reason,
    message,
    type: 'Normal',
    count: 1,
    firstTimestamp: stamp,
    lastTimestamp: stamp,
    source: { component: object.kind === 'Pod' ? 'default-scheduler' : 'node-controller' },
  };
  return envelope(EXPORTER_SOURCE, EXPORTER_DETAIL_TYPE, detail, at);
}

/** EC2's own notification on the default bus. */
export function ec2StateChange(instanceId: string, state: string, at: number) {
  const resources = [`arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${instanceId}`];
  return envelope(EC2_SOURCE, EC2_STATE_CHANGE_DETAIL_TYPE, { 'instance-id': instanceId, state }, at, resources);
}

/**
 * EventBridge → SQS → Lambda: each event becomes one record whose body is the event's JSON (a
 * string is sent as it is, e.g. a malformed body). Records are `m-1`, `m-2`, … in order.
 */
export function sqsBatch(events: (object | string)[], queue = 'ebs-attach-detach-events'): SQSEvent {
  return { Records: events.map((event, i) => sqsRecord(`m-${i + 1}`, typeof event === 'string' ? event : JSON.stringify(event), queue)) };
}

function sqsRecord(messageId: string, body: string, queue: string): SQSRecord {
  const sent = '1772442000000';
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: sent, SenderId: 'AIDAEVENTBRIDGE', ApproximateFirstReceiveTimestamp: sent },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${REGION}:${ACCOUNT}:${queue}`,
    awsRegion: REGION,
  };
}

/** A Lambda context with `timeoutMs` to run, counted in real time from now, as Lambda counts it. */
export function lambdaContext(timeoutMs = 60_000, functionName = 'ebs-attach-detach'): Context {
  const deadline = performance.now() + timeoutMs;
  const fail = () => {
    throw new Error('done/fail/succeed are not used by async handlers');
  };
  const requestId = idOf(functionName, 'request');
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/03/02/[$LATEST]${requestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
    done: fail,
    fail,
    succeed: fail,
  };
}
