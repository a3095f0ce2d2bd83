/** What every DynamoDB store operation needs: the injected client, the table and the tunables. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface DynamoVolumeStoreOptions {
  /** Built once by the composition root; `AWS_ENDPOINT_URL_DYNAMODB` reaches it through the SDK itself. */
  client: DynamoDBClient;
  tableName: string;
  /** Strongly consistent reads (default true): a pass decides on what the last write left. */
  consistentRead?: boolean;
  /** Items per Scan page (Scan's `Limit`); default: DynamoDB's 1 MB pages. */
  scanPageSize?: number;
  /** BatchGetItem retries of unprocessed keys, with exponential backoff and jitter. */
  batchGetRetry?: { maxAttempts: number; baseDelayMs: number };
  /** How long a removed volume's tombstone lives before DynamoDB TTL deletes it (default one day). */
  tombstoneTtlSeconds?: number;
  /** Epoch ms; only stamps tombstones. */
  clock: () => number;
}

export type StoreContext = Required<Omit<DynamoVolumeStoreOptions, 'scanPageSize'>> & { scanPageSize?: number };

export function storeContext(options: DynamoVolumeStoreOptions): StoreContext {
  if (!options.tableName) throw new Error('DynamoVolumeStore needs a table name');
  return {
    consistentRead: true,
    batchGetRetry: { maxAttempts: 8, baseDelayMs: 50 },
    tombstoneTtlSeconds: 24 * 3600,
    ...options,
  };
}
