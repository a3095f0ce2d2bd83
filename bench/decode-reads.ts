/**
 * What the other two large reads of a 5,000-node pass cost to decode, part by part (issue 30):
 * the DynamoDB Scan of 20,001 volume items (1 MB pages, replayed to the SDK client as the store
 * builds it) and one 500-pod page of the pods list (served by the local Kubernetes API for a
 * generated cluster). `npx tsx bench/decode-reads.ts [iterations]`.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { storeContext } from '../lambda/adapters/dynamodb/context.js';
import { parseItem, toItem, volumeRecordSchema, type Item } from '../lambda/adapters/dynamodb/item.js';
import { scanVolumes } from '../lambda/adapters/dynamodb/reads.js';
import { podFromJson } from '../lambda/adapters/kubernetes/json-mapping.js';
import { withoutSdkLogger } from '../lambda/adapters/sdk-logger.js';
import { generateCluster } from '../sandbox/generate/cluster.js';
import { seedKube } from '../sandbox/generate/seed.js';
import { startKubeSandbox } from '../sandbox/kube/index.js';

const iterations = Number(process.argv[2] ?? 10);

/** Median CPU milliseconds of `run`, after two warm-ups. */
async function cpu(name: string, run: () => unknown): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < iterations + 2; i++) {
    const before = process.cpuUsage();
    await run();
    const used = process.cpuUsage(before);
    if (i >= 2) samples.push((used.user + used.system) / 1000);
  }
  const median = samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;
  console.log(`  ${name.padEnd(44)} ${median.toFixed(1)} ms CPU`);
}

/** Volume items as seedActualState writes them: one attachment each, attached, mounted, reported. */
function volumeItems(count: number): Item[] {
  return Array.from({ length: count }, (_, i) => {
    const volumeId = `vol-${i.toString(16).padStart(17, '0')}`;
    const nodeName = `ip-10-0-${i % 250}-${i % 20}.ec2.internal`;
    const attachment = {
      nodeName,
      instanceId: `i-${(i >> 2).toString(16).padStart(17, '0')}`,
      device: '/dev/xvdaa',
      since: 1_764_300_000_000,
    };
    return toItem(
      {
        volumeId,
        uniqueName: `kubernetes.io/csi/ebs.csi.aws.com^${volumeId}`,
        accessModes: ['ReadWriteOnce'],
        multiAttach: false,
        attachments: { [nodeName]: { ...attachment, state: 'attached', mounted: true, reported: true } },
        operations: {},
        backoff: {},
        version: 1,
      },
      1,
    );
  });
}

/** DynamoDB's pages of at most 1 MB, as JSON. */
function scanPages(items: Item[]): string[] {
  const pages: string[] = [];
  let page: Item[] = [];
  let size = 0;
  const flush = (last: boolean) => {
    const key = last ? {} : { LastEvaluatedKey: { pk: (page.at(-1) as Item).pk } };
    pages.push(JSON.stringify({ Items: page, Count: page.length, ScannedCount: page.length, ...key }));
    page = [];
    size = 0;
  };
  for (const item of items) {
    const bytes = JSON.stringify(item).length;
    if (size + bytes > 1_000_000) flush(false);
    page.push(item);
    size += bytes;
  }
  flush(true);
  return pages;
}

async function scan(): Promise<void> {
  const items = volumeItems(20_001);
  const pages = scanPages(items);
  let next = 0;
  const client = withoutSdkLogger(
    new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' },
      requestHandler: {
        handle: () =>
          Promise.resolve({ response: { statusCode: 200, headers: {}, body: new TextEncoder().encode(pages[next++ % pages.length]) } }),
      },
    }),
  );
  const ctx = storeContext({ client, tableName: 'bench', clock: () => 0 });
  const natives = items.map((item) => unmarshall(item));
  console.log(`Scan of ${items.length} volume items, ${pages.length} pages:`);
  await cpu('scanVolumes (everything below)', () => ((next = 0), scanVolumes(ctx)));
  await cpu('the SDK decoding the pages', async () => {
    next = 0;
    for (let page = 0; page < pages.length; page++) await client.send(new ScanCommand({ TableName: 'bench' }));
  });
  await cpu('of which JSON.parse', () => pages.forEach((page) => JSON.parse(page) as unknown));
  await cpu('parseItem (unmarshall + zod)', () => items.forEach(parseItem));
  await cpu('of which unmarshall', () => items.forEach((item) => unmarshall(item)));
  await cpu('of which zod (volumeRecordSchema)', () => natives.forEach((native) => volumeRecordSchema.safeParse(native)));
  client.destroy();
}

async function pods(): Promise<void> {
  const kube = await startKubeSandbox({ transport: 'http' });
  try {
    seedKube(kube, generateCluster({ seed: 60, nodes: 60, volumesPerNode: 4, podsPerNode: 10 }));
    const response = await fetch(`${kube.url}/api/v1/pods?limit=500`, { headers: { authorization: `Bearer ${kube.token}` } });
    const text = await response.text();
    const page = JSON.parse(text) as { items: unknown[] };
    console.log(`One page of the pods list, ${page.items.length} pods, ${Math.round(text.length / 1024)} KiB:`);
    await cpu('JSON.parse', () => JSON.parse(text) as unknown);
    await cpu('podFromJson of every pod', () => page.items.map(podFromJson));
  } finally {
    await kube.stop();
  }
}

await scan();
await pods();
