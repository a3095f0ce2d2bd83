/**
 * The invocations production sends, built exactly as the services shape them: EventBridge
 * Scheduler's input, EventBridge events (kubernetes-event-exporter's and EC2's) delivered in SQS
 * batches, and a Lambda context whose remaining time counts down.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';

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

/** What EventBridge Scheduler sends the scheduled function (FULL_PASS_INPUT). */
export function scheduledInput(): { pass: 'full' } {
  return { pass: 'full' };
}

function envelope<D>(source: string, detailType: string, detail: D, at: number, resources: string[] = []): EventBridgeEvent<D> {
  return { version: '0', id: randomUUID(), 'detail-type': detailType, source, account: ACCOUNT, time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'), region: REGION, resources, detail };
}

export interface InvolvedObject {
  kind: 'Pod' | 'Node';
  namespace?: string;
  name: string;
  uid?: string;
}

/** A core/v1 Event as kubernetes-event-exporter's EventBridge sink forwards it. */
export function kubernetesEvent(object: InvolvedObject, reason: string, message: string, at: number) {
  const stamp = new Date(at).toISOString();
  const detail = {
    metadata: { name: `${object.name}.${randomUUID().slice(0, 8)}`, namespace: object.namespace ?? 'default', creationTimestamp: stamp },
    involvedObject: { apiVersion: 'v1', ...object },
    reason, message, type: 'Normal', count: 1, firstTimestamp: stamp, lastTimestamp: stamp,
    source: { component: object.kind === 'Pod' ? 'default-scheduler' : 'node-controller' },
  };
  return envelope('kubernetes-event-exporter', 'Kubernetes Event', detail, at);
}

/** EC2's own notification on the default bus. */
export function ec2StateChange(instanceId: string, state: string, at: number) {
  return envelope('aws.ec2', 'EC2 Instance State-change Notification', { 'instance-id': instanceId, state }, at, [`arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${instanceId}`]);
}

/** EventBridge → SQS → Lambda: each event becomes one record whose body is the event's JSON. */
export function sqsBatch(events: object[], queue = 'ebs-attach-detach-events'): SQSEvent {
  return { Records: events.map((event) => sqsRecord(JSON.stringify(event), queue)) };
}

function sqsRecord(body: string, queue: string): SQSRecord {
  const sent = String(Date.now());
  return {
    messageId: randomUUID(), receiptHandle: randomUUID(), body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: sent, SenderId: 'AIDAEVENTBRIDGE', ApproximateFirstReceiveTimestamp: sent },
    messageAttributes: {}, md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs', eventSourceARN: `arn:aws:sqs:${REGION}:${ACCOUNT}:${queue}`, awsRegion: REGION,
  };
}

/** A Lambda context with `timeoutMs` to run, counted in real time from now, as Lambda counts it. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  const fail = () => {
    throw new Error('done/fail/succeed are not used by async handlers');
  };
  return {
    callbackWaitsForEmptyEventLoop: false, functionName, functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`, memoryLimitInMB: '512',
    awsRequestId: randomUUID(), logGroupName: `/aws/lambda/${functionName}`, logStreamName: `2026/03/02/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail, fail, succeed: fail,
  };
}
