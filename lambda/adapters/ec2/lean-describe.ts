/**
 * DescribeVolumes and DescribeInstances by id, read with output schemas pruned to the members
 * mapping.ts uses. The SDK's XML deserializer visits every member of the output schema for every
 * item returned; a verification of 20,000 volumes and 5,000 instances spent about a third of a
 * pass's CPU there (bench, `--profile`). The request, signing, retries and error parsing are the
 * SDK's own; only the members read from a successful answer differ. The pruned schemas are cut
 * from the SDK's (static schema tuples of @smithy/core/schema), so the XML names stay the SDK's.
 */
import { DescribeInstances$, DescribeInstancesCommand, DescribeVolumes$, DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { makeBuilder } from '@smithy/core/client';
import { getEndpointPlugin } from '@smithy/core/endpoints';
import type { EndpointParameterInstructions, StaticOperationSchema } from '@smithy/types';

type Tuple = readonly unknown[];
type Prune = ((schema: Tuple) => Tuple) | null;

const deref = (schema: unknown): Tuple => (typeof schema === 'function' ? (schema as () => Tuple)() : (schema as Tuple));

/** A structure schema keeping only the members named in `keep`, each optionally pruned further. */
function structWith(struct: Tuple, keep: Record<string, Prune>): Tuple {
  const [kind, namespace, name, traits, names, members] = struct as [number, string, string, unknown, string[], [unknown, unknown][]];
  const kept = Object.entries(keep).map(([member, prune]) => {
    const index = names.indexOf(member);
    if (index < 0) throw new Error(`EC2 schema ${name} has no member ${member}`);
    const [schema, memberTraits] = members[index] as [unknown, unknown];
    return [member, [prune === null ? schema : prune(deref(schema)), memberTraits]] as const;
  });
  return [kind, namespace, name, traits, kept.map(([member]) => member), kept.map(([, schema]) => schema)];
}

/** A list schema whose items are pruned. */
function listOf(list: Tuple, prune: (schema: Tuple) => Tuple): Tuple {
  const [kind, namespace, name, traits, [item, itemTraits]] = list as [number, string, string, unknown, [unknown, unknown]];
  return [kind, namespace, name, traits, [prune(deref(item)), itemTraits]];
}

/** The operation schema with the same input and a pruned output. */
function withOutput(operation: Tuple, prune: (schema: Tuple) => Tuple): Tuple {
  const [kind, namespace, name, traits, input, output] = operation;
  return [kind, namespace, name, traits, input, prune(deref(output))];
}

const volumeAttachment = (s: Tuple) => structWith(s, { InstanceId: null, State: null, Device: null, AttachTime: null });
const volume = (s: Tuple) =>
  structWith(s, { VolumeId: null, AvailabilityZone: null, MultiAttachEnabled: null, Attachments: (l) => listOf(l, volumeAttachment) });

const blockDeviceMapping = (s: Tuple) => structWith(s, { DeviceName: null, Ebs: (e) => structWith(e, { VolumeId: null }) });
const instance = (s: Tuple) =>
  structWith(s, {
    InstanceId: null,
    State: (state) => structWith(state, { Name: null }),
    BlockDeviceMappings: (l) => listOf(l, blockDeviceMapping),
  });
const reservation = (s: Tuple) => structWith(s, { Instances: (l) => listOf(l, instance) });

const LEAN_DESCRIBE_VOLUMES = withOutput(DescribeVolumes$, (s) => structWith(s, { NextToken: null, Volumes: (l) => listOf(l, volume) }));
const LEAN_DESCRIBE_INSTANCES = withOutput(DescribeInstances$, (s) =>
  structWith(s, { NextToken: null, Reservations: (l) => listOf(l, reservation) }),
);

function leanCommand<C extends { getEndpointParameterInstructions(): EndpointParameterInstructions }>(
  full: C,
  operation: string,
  schema: Tuple,
): C {
  const build = makeBuilder(full.getEndpointParameterInstructions(), 'AmazonEC2', 'EC2Client', getEndpointPlugin);
  return build({}, () => [], operation, schema as StaticOperationSchema) as unknown as C;
}

/** DescribeVolumes whose answer carries only ids, zone, multi-attach and attachments. */
export const LeanDescribeVolumesCommand = leanCommand(DescribeVolumesCommand, 'DescribeVolumes', LEAN_DESCRIBE_VOLUMES);
/** DescribeInstances whose answer carries only ids, states and block device mappings. */
export const LeanDescribeInstancesCommand = leanCommand(DescribeInstancesCommand, 'DescribeInstances', LEAN_DESCRIBE_INSTANCES);
