/**
 * The steady-state pass (nothing to do) against its lower bound: every list page once, every
 * Scan page once (as many as the pass's segmented Scan takes), ceil(volumes / 500) DescribeVolumes per sync, and no write anywhere.
 */
import { paginateScan } from '@aws-sdk/client-dynamodb';
import type { MeteredDynamo } from '../sandbox/metered-dynamo.js';
import { localDynamoClient } from '../sandbox/dynamodb.js';
import type { Drained } from '../sandbox/oracle/ledger.js';
import { SCAN_SEGMENTS } from '../lambda/reconcile/pass/scan.js';

/** EC2's DescribeVolumes batch. */
const DESCRIBE_BATCH = 500;

export interface ObjectCounts {
  nodes: number;
  pods: number;
  pvcs: number;
  pvs: number;
  volumeAttachments: number;
  /** Volumes in the actual state (DynamoDB items). */
  volumes: number;
  /** Pages the pass's full Scan of the table takes, all segments (DynamoDB stops a page at 1 MB of items). */
  scanPages: number;
}

/**
 * How many pages a full pass's Scan of the table takes, counted by scanning it once as the pass
 * does, in SCAN_SEGMENTS segments (Select COUNT pages like a full read): each segment ends on a
 * page of its own, so the parallel read takes up to one page more per segment than one sequential.
 */
export async function countScanPages(endpoint: string, tableName: string): Promise<number> {
  const client = localDynamoClient(endpoint);
  try {
    let pages = 0;
    const parallel = (segment: number) => (SCAN_SEGMENTS > 1 ? { Segment: segment, TotalSegments: SCAN_SEGMENTS } : {});
    for (let segment = 0; segment < SCAN_SEGMENTS; segment++) {
      for await (const _page of paginateScan({ client }, { TableName: tableName, Select: 'COUNT', ...parallel(segment) })) pages += 1;
    }
    return pages;
  } finally {
    client.destroy();
  }
}

export interface CallRow {
  service: 'Kubernetes' | 'EC2' | 'DynamoDB';
  operation: string;
  calls: number;
  lowerBound?: number;
}

/** `sync`: verification was due, so DescribeVolumes belongs to the bound; `pageSize`: the lists' page size. */
export function steadyRows(
  counts: ObjectCounts,
  drained: Drained,
  dynamo: MeteredDynamo['meter'],
  sync: boolean,
  pageSize: number,
): CallRow[] {
  const pages = (n: number) => Math.max(1, Math.ceil(n / pageSize));
  const listBound: Record<string, number> = {
    'list nodes': pages(counts.nodes),
    'list pods': pages(counts.pods),
    'list persistentvolumeclaims': pages(counts.pvcs),
    'list persistentvolumes': pages(counts.pvs),
    'list volumeattachments': pages(counts.volumeAttachments),
  };
  const rows: CallRow[] = [];
  for (const [operation, bound] of Object.entries(listBound))
    rows.push({ service: 'Kubernetes', operation, calls: drained.kube[operation] ?? 0, lowerBound: bound });
  for (const [operation, calls] of Object.entries(drained.kube))
    if (!(operation in listBound)) rows.push({ service: 'Kubernetes', operation, calls, lowerBound: 0 });
  const describeBound = sync ? Math.ceil(counts.volumes / DESCRIBE_BATCH) : 0;
  rows.push({ service: 'EC2', operation: 'DescribeVolumes', calls: drained.ec2.DescribeVolumes ?? 0, lowerBound: describeBound });
  for (const [operation, calls] of Object.entries(drained.ec2))
    if (operation !== 'DescribeVolumes')
      rows.push({ service: 'EC2', operation, calls, ...(operation.startsWith('Describe') ? {} : { lowerBound: 0 }) });
  const scanBound = counts.scanPages;
  rows.push({ service: 'DynamoDB', operation: 'Scan', calls: dynamo.calls.Scan ?? 0, lowerBound: scanBound });
  for (const [operation, calls] of Object.entries(dynamo.calls))
    if (operation !== 'Scan') rows.push({ service: 'DynamoDB', operation, calls, ...(isWrite(operation) ? { lowerBound: 0 } : {}) });
  return rows;
}

function isWrite(operation: string): boolean {
  return ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'].includes(operation);
}
