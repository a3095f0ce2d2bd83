/**
 * The state table's schema, owned here: the CDK stack (infra/constructs/state-table.ts), the local
 * sandboxes (sandbox/dynamodb.ts) and `ebs-attach-detach init` (lambda/cli/table.ts) all build the
 * table from it. The controller itself never creates tables: its role has no such permission.
 * One item per volume keyed by `pk` (string), no sort key, on-demand capacity; DynamoDB's TTL on
 * `ttl` (epoch seconds) deletes removed volumes' tombstones.
 */

export const TABLE_SCHEMA = {
  partitionKey: { name: 'pk', type: 'S' },
  billingMode: 'PAY_PER_REQUEST',
  ttlAttribute: 'ttl',
} as const;
