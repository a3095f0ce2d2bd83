/**
 * Batched reads. DescribeVolumes takes up to 500 ids per call; when any id is unknown EC2 fails
 * the whole call with InvalidVolume.NotFound naming ids. The named ids are only suspects (other
 * implementations name every requested id): the call is repeated without them, and the suspects
 * are then described through the `volume-id` filter, which never fails on unknown ids (≤ 200
 * values per call), so only an id the filter does not return is concluded missing. If the
 * message names none of ours (or keeps failing), the whole batch goes through the filter.
 * DescribeInstances is handled the same way with InvalidInstanceID.NotFound and `instance-id`.
 *
 * Batches go out a few at a time: EC2's non-mutating actions each have a bucket of 100 requests
 * refilled at 20 a second per account and Region, shared with every other caller (the CSI driver,
 * consoles). Four in flight keep a 5,000-node pass's ~40 DescribeVolumes well inside it while
 * no longer paying one round trip per batch in sequence.
 */
import {
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  paginateDescribeInstances,
  paginateDescribeVolumes,
  type EC2Client,
  type Filter,
} from '@aws-sdk/client-ec2';
import pLimit from 'p-limit';
import type { InstanceId, InstanceState, VolumeId, VolumeObservation } from '../../core/types.js';
import type { DecodedInstance as Instance, DecodedVolume as Volume } from './describe-shapes.js';
import { classifyEc2Error, idsInMessage } from './errors.js';
import { missingVolume, toInstanceView, toObservation, type InstanceView } from './mapping.js';

const ID_BATCH = 500;
const FILTER_VALUES_PER_CALL = 200;
const PAGE_SIZE = 500;
/** Retries without named ids before switching to the filter (EC2 may name only some ids). */
const NOT_FOUND_RETRIES = 2;
/** Batches of one describe call in flight at once. */
export const READ_CONCURRENCY = 4;

/** `read` of every batch, at most READ_CONCURRENCY at once, results in batch order. */
function eachBatch<T, R>(batches: T[][], read: (batch: T[]) => Promise<R[]>): Promise<R[]> {
  const limit = pLimit(READ_CONCURRENCY);
  return Promise.all(batches.map((batch) => limit(() => read(batch)))).then((results) => results.flat());
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * Calls `byIds`; on a NotFound naming some of `ids`, repeats without them and describes those
 * through `byFilter` (a message never proves absence); otherwise the whole batch uses `byFilter`.
 */
async function withoutMissing<T>(
  ids: string[],
  notFoundReason: 'volume-not-found' | 'instance-not-found',
  prefix: 'vol-' | 'i-',
  byIds: (ids: string[]) => Promise<T[]>,
  byFilter: (ids: string[]) => Promise<T[]>,
): Promise<T[]> {
  const suspects: string[] = [];
  let remaining = ids;
  let items: T[] = [];
  for (let attempt = 0; remaining.length > 0; attempt += 1) {
    try {
      items = await byIds(remaining);
      break;
    } catch (error) {
      const classified = classifyEc2Error(error);
      if (classified.reason !== notFoundReason) throw error;
      const named = idsInMessage(classified.message, prefix).filter((id) => remaining.includes(id));
      if (named.length === 0 || attempt >= NOT_FOUND_RETRIES) return byFilter(ids);
      suspects.push(...named);
      remaining = remaining.filter((id) => !named.includes(id));
    }
  }
  return suspects.length === 0 ? items : [...items, ...(await byFilter(suspects))];
}

export class Ec2Reader {
  constructor(private readonly client: EC2Client) {}

  async describeVolumes(volumeIds: VolumeId[]): Promise<Map<VolumeId, VolumeObservation>> {
    const unique = [...new Set(volumeIds)];
    const result = new Map<VolumeId, VolumeObservation>();
    const found = await eachBatch(chunk(unique, ID_BATCH), (batch) =>
      withoutMissing(
        batch,
        'volume-not-found',
        'vol-',
        (ids) => this.volumesByIds(ids),
        (ids) => this.volumesByFilter('volume-id', ids),
      ),
    );
    for (const volume of found) {
      const observation = toObservation(volume);
      if (observation) result.set(observation.volumeId, observation);
    }
    // Whatever EC2 did not return (absent from an answer by ids or by filter) does not exist.
    for (const id of unique) if (!result.has(id)) result.set(id, missingVolume(id));
    return result;
  }

  async describeInstanceVolumes(instanceId: InstanceId): Promise<VolumeObservation[]> {
    const volumes = await this.volumesByFilters([{ Name: 'attachment.instance-id', Values: [instanceId] }]);
    return volumes.flatMap((volume) => toObservation(volume) ?? []);
  }

  async describeInstances(instanceIds: InstanceId[]): Promise<Map<InstanceId, InstanceState | 'missing'>> {
    const seen = await this.observeInstances(instanceIds);
    return new Map([...seen].map(([id, instance]) => [id, instance === 'missing' ? 'missing' : (instance.state ?? 'missing')]));
  }

  /** States and block device mappings; ids EC2 does not know (or shows without a state) come back `missing`. */
  async observeInstances(instanceIds: InstanceId[]): Promise<Map<InstanceId, InstanceView | 'missing'>> {
    const result = new Map<InstanceId, InstanceView | 'missing'>();
    for (const instance of await this.instances(instanceIds)) {
      const view = toInstanceView(instance);
      if (view.instanceId && view.state) result.set(view.instanceId, view);
    }
    for (const id of new Set(instanceIds)) if (!result.has(id)) result.set(id, 'missing');
    return result;
  }

  /** One instance's state and block device mappings; undefined when EC2 does not know it. */
  async describeInstance(instanceId: InstanceId): Promise<InstanceView | undefined> {
    const [instance] = await this.instances([instanceId]);
    return instance ? toInstanceView(instance) : undefined;
  }

  private async instances(instanceIds: InstanceId[]): Promise<Instance[]> {
    return eachBatch(chunk([...new Set(instanceIds)], ID_BATCH), (batch) =>
      withoutMissing(
        batch,
        'instance-not-found',
        'i-',
        (ids) => this.instancesByIds(ids),
        (ids) => this.instancesByFilter(ids),
      ),
    );
  }

  private async volumesByIds(ids: string[]): Promise<Volume[]> {
    const output = await this.client.send(new DescribeVolumesCommand({ VolumeIds: ids }));
    return output.Volumes ?? [];
  }

  private async volumesByFilter(name: string, values: string[]): Promise<Volume[]> {
    const volumes: Volume[] = [];
    for (const part of chunk(values, FILTER_VALUES_PER_CALL))
      volumes.push(...(await this.volumesByFilters([{ Name: name, Values: part }])));
    return volumes;
  }

  private async volumesByFilters(filters: Filter[]): Promise<Volume[]> {
    const volumes: Volume[] = [];
    for await (const page of paginateDescribeVolumes({ client: this.client, pageSize: PAGE_SIZE }, { Filters: filters })) {
      volumes.push(...(page.Volumes ?? []));
    }
    return volumes;
  }

  private async instancesByIds(ids: string[]): Promise<Instance[]> {
    const output = await this.client.send(new DescribeInstancesCommand({ InstanceIds: ids }));
    return (output.Reservations ?? []).flatMap((reservation) => reservation.Instances ?? []);
  }

  private async instancesByFilter(ids: string[]): Promise<Instance[]> {
    const instances: Instance[] = [];
    for (const part of chunk(ids, FILTER_VALUES_PER_CALL)) {
      const filters = [{ Name: 'instance-id', Values: part }];
      for await (const page of paginateDescribeInstances({ client: this.client, pageSize: PAGE_SIZE }, { Filters: filters })) {
        instances.push(...(page.Reservations ?? []).flatMap((reservation) => reservation.Instances ?? []));
      }
    }
    return instances;
  }
}
