/**
 * A local EC2 seeded with a generated cluster, in a process of its own so that the process reading
 * from it measures only its own CPU (bench/decode-ec2.ts). Sends the endpoint and the data volumes'
 * ids once ready; stops when the parent disconnects.
 */
import { startLocalEc2 } from '../sandbox/ec2/server.js';
import { generateCluster } from '../sandbox/generate/cluster.js';
import { seedEc2 } from '../sandbox/generate/seed.js';

const nodes = Number(process.env.BENCH_EC2_NODES ?? 5000);
const ec2 = await startLocalEc2({ throttle: false });
const cluster = generateCluster({ seed: nodes, nodes, volumesPerNode: 4, podsPerNode: 10 });
seedEc2(ec2.world, cluster, 'bench');
process.send?.({ endpoint: ec2.endpoint, volumeIds: cluster.volumes.map((v) => v.volumeId) });
process.on('disconnect', () => void ec2.stop().then(() => process.exit(0)));
