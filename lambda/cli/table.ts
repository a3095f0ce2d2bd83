/**
 * Creating the state table from its schema (adapters/dynamodb/table-schema.ts): `init` and the local
 * sandboxes do; the controller never does (its role may not).
 */
import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient, TableDescription } from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../adapters/dynamodb/table-schema.js';

export type EnsureOutcome = 'created' | 'exists';

/** Why an existing table cannot serve as the state table, or undefined when it can. */
function schemaMismatch(table: TableDescription): string | undefined {
  const keys = table.KeySchema ?? [];
  const hash = keys.find((k) => k.KeyType === 'HASH');
  const type = table.AttributeDefinitions?.find((a) => a.AttributeName === hash?.AttributeName)?.AttributeType;
  const { name, type: wanted } = TABLE_SCHEMA.partitionKey;
  if (keys.length !== 1 || hash?.AttributeName !== name || type !== wanted)
    return `its key must be the partition key ${name} (${wanted}) alone, not ${keys.map((k) => `${k.AttributeName} (${k.KeyType})`).join(', ')}`;
  return undefined;
}

/**
 * Creates the table unless it exists and waits until it is active; an existing table of another
 * shape is an error. TTL is left to the stack: local DynamoDBs (dynalite) do not implement it, and
 * nothing depends on it but the eventual removal of tombstones.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<EnsureOutcome> {
  const { name, type } = TABLE_SCHEMA.partitionKey;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: name, AttributeType: type }],
        KeySchema: [{ AttributeName: name, KeyType: 'HASH' }],
        BillingMode: TABLE_SCHEMA.billingMode,
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const mismatch = Table === undefined ? 'DynamoDB did not describe it' : schemaMismatch(Table);
    if (mismatch !== undefined)
      throw new Error(`table ${tableName} exists but cannot hold the actual state: ${mismatch}`, { cause: error });
    return 'exists';
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
  return 'created';
}
