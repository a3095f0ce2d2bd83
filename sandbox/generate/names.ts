/** Names shaped like a real EKS cluster's: node DNS names, instance and volume ids, pod suffixes. */
import type { Random } from './random.js';

export const STATEFUL_APPS = [
  'postgres',
  'kafka',
  'redis',
  'elasticsearch',
  'prometheus',
  'mongodb',
  'rabbitmq',
  'cassandra',
  'mysql',
  'minio',
  'etcd',
  'loki',
];
export const SINGLE_REPLICA_APPS = ['grafana', 'jenkins', 'gitea', 'nexus', 'sonarqube'];
export const STATELESS_APPS = ['api', 'web', 'checkout', 'worker', 'ingress', 'auth'];
export const NAMESPACES = ['payments', 'search', 'observability', 'data', 'platform'];
export const INSTANCE_TYPES = ['m6i.xlarge', 'm6i.2xlarge', 'r6i.xlarge', 'c6i.2xlarge', 'm7g.xlarge'];

/** EKS node names: `ip-10-0-<a>-<b>.ec2.internal`, unique per index. */
export function nodeName(index: number): string {
  return `ip-10-${Math.floor(index / 65_536) % 256}-${Math.floor(index / 256) % 256}-${index % 256}.ec2.internal`;
}

export function instanceId(random: Random): string {
  return `i-${random.hex(17)}`;
}

export function volumeId(random: Random): string {
  return `vol-${random.hex(17)}`;
}

/** Kubernetes' rand.String alphabet (no vowels, no confusable digits). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function podSuffix(random: Random, length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += SUFFIX_ALPHABET[random.int(SUFFIX_ALPHABET.length)];
  return out;
}

/** EBS CSI's device names: /dev/xvdaa, /dev/xvdab, … /dev/xvdaz, /dev/xvdba, … */
export function deviceName(index: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return `/dev/xvd${letters[Math.floor(index / 26) % 26]}${letters[index % 26]}`;
}
