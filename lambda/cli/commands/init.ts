/**
 * `init`: the state table. Locally (AWS_ENDPOINT_URL_DYNAMODB set) it is created, idempotently; in
 * AWS the stack owns it (PITR, deletion protection, TTL), so `init` prints the CDK and the AWS CLI.
 */
import { TABLE_SCHEMA } from '../../adapters/dynamodb/table-schema.js';
import { ensureTable } from '../table.js';
import { createDynamoClient } from '../../composition.js';
import type { Config } from '../../config.js';
import type { Io } from '../io.js';

const { partitionKey: key, billingMode, ttlAttribute } = TABLE_SCHEMA;

function awsCliCommands(table: string): string[] {
  return [
    `aws dynamodb create-table --table-name ${table} --attribute-definitions AttributeName=${key.name},AttributeType=${key.type} --key-schema AttributeName=${key.name},KeyType=HASH --billing-mode ${billingMode} --deletion-protection-enabled`,
    `aws dynamodb wait table-exists --table-name ${table}`,
    `aws dynamodb update-continuous-backups --table-name ${table} --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true`,
    `aws dynamodb update-time-to-live --table-name ${table} --time-to-live-specification Enabled=true,AttributeName=${ttlAttribute}`,
  ];
}

const CDK = `new dynamodb.Table(this, 'StateTable', {
  partitionKey: { name: '${key.name}', type: dynamodb.AttributeType.STRING },
  billingMode: dynamodb.BillingMode.${billingMode},
  pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  deletionProtection: true,
  timeToLiveAttribute: '${ttlAttribute}',
});`;

function instructions(table: string): string {
  return [
    `The state table ${table}: partition key ${key.name} (${key.type === 'S' ? 'string' : key.type}), no sort key, ${billingMode}; TTL on ${ttlAttribute}.`,
    '',
    'In AWS the stack creates it (infra/constructs/state-table.ts), with PITR and deletion protection:',
    '  npx cdk deploy -c clusterName=<cluster> -c apiEndpoint=<https URL> -c certificateAuthority=<base64 CA>',
    '',
    'Or with the AWS CLI:',
    ...awsCliCommands(table).map((line) => `  ${line}`),
    '',
    'Or in your own CDK app:',
    ...CDK.split('\n').map((line) => `  ${line}`),
    '',
    'Locally: set AWS_ENDPOINT_URL_DYNAMODB (e.g. npm run sandbox:dynamodb) and run `ebs-attach-detach init` again.',
  ].join('\n');
}

export async function runInit(config: Config, options: { print: boolean; json: boolean }, io: Io): Promise<number> {
  const local = config.endpoints.dynamodb;
  if (options.print || local === undefined) {
    io.out(
      options.json
        ? JSON.stringify({ table: config.tableName, schema: TABLE_SCHEMA, awsCli: awsCliCommands(config.tableName), cdk: CDK }, null, 2)
        : instructions(config.tableName),
    );
    return 0;
  }
  const client = createDynamoClient(config);
  try {
    const outcome = await ensureTable(client, config.tableName);
    io.out(
      options.json
        ? JSON.stringify({ table: config.tableName, endpoint: local, outcome, schema: TABLE_SCHEMA }, null, 2)
        : `Table ${config.tableName} ${outcome === 'created' ? 'created' : 'already exists'} at ${local} (partition key ${key.name}, ${billingMode}).`,
    );
    return 0;
  } finally {
    client.destroy();
  }
}
