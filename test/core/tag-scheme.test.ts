import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INSTANCE_TAGS,
  DEFAULT_VOLUME_TAGS,
  missingTags,
  notAuthorizedReason,
  parseTagList,
  spansAccount,
  tagsText,
  type TagScheme,
} from '../../lambda/core/tag-scheme.js';

const tags = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('parseTagList: the tags a setting names', () => {
  it.each([
    [
      'the default volume schemes name this cluster',
      'volume',
      DEFAULT_VOLUME_TAGS,
      ['ebs.csi.aws.com/cluster-name=prod', 'kubernetes.io/cluster/prod=owned'],
    ],
    [
      'the default instance schemes name this cluster',
      'instance',
      DEFAULT_INSTANCE_TAGS,
      ['eks:cluster-name=prod', 'eks:eks-cluster-name=prod', 'ebs.csi.aws.com/cluster-name=prod', 'kubernetes.io/cluster/prod=owned'],
    ],
    [
      'the account-wide CSI scheme, when chosen',
      'volume',
      'csi-any-cluster',
      ['ebs.csi.aws.com/cluster=true', 'kubernetes.io/created-for/pvc/name=*'],
    ],
    ['a key=value naming the cluster by value', 'volume', 'team/cluster=prod', ['team/cluster=prod']],
    ['a key=value naming the cluster by key', 'instance', 'example.com/cluster/prod=yes', ['example.com/cluster/prod=yes']],
  ] as const)('%s', (_case, side, text, expected) => {
    const parsed = parseTagList(text, side, 'prod');
    expect(parsed.problems).toEqual([]);
    expect(parsed.tags.map((t) => `${t.key}=${t.value}`)).toEqual(expected);
  });

  it.each([
    ['a free-text key that names no cluster', 'kubernetes.io/role=node', 'names no cluster'],
    ['a tag shared by every cluster', 'ebs.csi.aws.com/cluster=true', 'names no cluster'],
    ['an unknown scheme', 'owned-by-us', 'neither a volume tag scheme'],
    ['a key without a value', 'team/cluster=', 'neither a volume tag scheme'],
    ['nothing', ' , ', 'names no volume tag'],
  ])('refuses %s', (_case, text, problem) => {
    expect(parseTagList(text, 'volume', 'prod').problems.join(' ')).toContain(problem);
  });

  it('says which lists span every cluster of the account', () => {
    expect(spansAccount('cluster-name, csi-any-cluster', 'volume')).toBe(true);
    expect(spansAccount(DEFAULT_VOLUME_TAGS, 'volume')).toBe(false);
  });
});

describe('missingTags and notAuthorizedReason: which required tag a resource lacks', () => {
  const scheme: TagScheme = {
    volume: parseTagList('cluster-name,csi-any-cluster', 'volume', 'prod').tags,
    instance: parseTagList('eks-nodegroup', 'instance', 'prod').tags,
  };

  it('finds nothing missing when one tag of the list is there with its value (or any value for *)', () => {
    expect(missingTags(scheme.volume, tags({ 'ebs.csi.aws.com/cluster-name': 'prod' }))).toEqual([]);
    expect(missingTags(scheme.volume, tags({ 'kubernetes.io/created-for/pvc/name': 'data-db-0' }))).toEqual([]);
  });

  it('names every alternative when none is there, or the value differs', () => {
    expect(missingTags(scheme.volume, tags({ 'ebs.csi.aws.com/cluster-name': 'staging' }))).toHaveLength(3);
    expect(tagsText(scheme.instance)).toBe('tag eks:cluster-name=prod');
    expect(tagsText(scheme.volume)).toBe(
      'one of the tags ebs.csi.aws.com/cluster-name=prod, ebs.csi.aws.com/cluster=true, kubernetes.io/created-for/pvc/name (any value)',
    );
  });

  it('says which side lacks what, in one sentence', () => {
    const volume = { volumeId: 'vol-1', tags: tags({}) };
    const instance = { instanceId: 'i-1', tags: tags({ 'eks:cluster-name': 'other' }) };
    expect(notAuthorizedReason({ ...scheme, volume: scheme.volume.slice(0, 1) }, volume, instance)).toBe(
      'volume vol-1 lacks tag ebs.csi.aws.com/cluster-name=prod, and instance i-1 lacks tag eks:cluster-name=prod that the role requires',
    );
    expect(notAuthorizedReason(scheme, { volumeId: 'vol-1', tags: tags({ 'ebs.csi.aws.com/cluster': 'true' }) })).toBeUndefined();
  });
});
