/** Global setup of the `dynamodb-local` project: one DynamoDB Local for the run, stopped after it. */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../sandbox/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the run's DynamoDB Local; unset in projects that use dynalite. */
    dynamoDbLocalEndpoint: string | undefined;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal();
  project.provide('dynamoDbLocalEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
