/**
 * EC2's error vocabulary. Client errors are HTTP 400 (401 for missing credentials),
 * throttling is `RequestLimitExceeded` with 503, server errors are 5xx, as EC2 documents
 * (APIReference/errors-overview). Messages follow the wording EC2 is seen to return.
 */
export class Ec2Error extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = code;
  }
}

function quotedList(ids: string[]): string {
  return ids.join(', ');
}

export const ec2Errors = {
  volumeNotFound: (ids: string[]) =>
    new Ec2Error(
      'InvalidVolume.NotFound',
      ids.length === 1 ? `The volume '${ids[0]}' does not exist.` : `The volumes '${quotedList(ids)}' do not exist.`,
    ),
  instanceNotFound: (ids: string[]) =>
    new Ec2Error(
      'InvalidInstanceID.NotFound',
      ids.length === 1 ? `The instance ID '${ids[0]}' does not exist` : `The instance IDs '${quotedList(ids)}' do not exist`,
    ),
  volumeInUse: (volumeId: string) => new Ec2Error('VolumeInUse', `${volumeId} is already attached to an instance`),
  volumeAttached: (volumeId: string, instanceId: string) =>
    new Ec2Error('VolumeInUse', `Volume ${volumeId} is currently attached to ${instanceId}`),
  zoneMismatch: (volumeId: string, instanceId: string) =>
    new Ec2Error('InvalidVolume.ZoneMismatch', `The volume '${volumeId}' is not in the same availability zone as instance '${instanceId}'`),
  deviceInUse: (device: string) =>
    new Ec2Error('InvalidParameterValue', `Invalid value '${device}' for unixDevice. Attachment point ${device} is already in use`),
  badDevice: (device: string) =>
    new Ec2Error('InvalidParameterValue', `Value (${device}) for parameter device is invalid. ${device} is not a valid EBS device name.`),
  attachmentLimit: () => new Ec2Error('AttachmentLimitExceeded', 'The maximum number of volumes has been reached.'),
  // EC2's own message lacks the space before "is"; kept so clients matching on it behave the same.
  volumeState: (volumeId: string, state: string) => new Ec2Error('IncorrectState', `Volume '${volumeId}'is in the '${state}' state.`),
  attachmentNotFound: (volumeId: string, instanceId: string) =>
    new Ec2Error('InvalidAttachment.NotFound', `The volume '${volumeId}' is not attached to instance '${instanceId}'.`),
  instanceState: (instanceId: string, state: string) =>
    new Ec2Error('IncorrectInstanceState', `The instance '${instanceId}' is not in a valid state for this operation (it is '${state}').`),
  missingParameter: (name: string) => new Ec2Error('MissingParameter', `The request must contain the parameter ${name}`),
  invalidParameter: (message: string) => new Ec2Error('InvalidParameterValue', message),
  combination: (message: string) => new Ec2Error('InvalidParameterCombination', message),
  invalidFilter: (name: string) => new Ec2Error('InvalidParameterValue', `The filter '${name}' is invalid`),
  filterLimit: () => new Ec2Error('FilterLimitExceeded', 'The maximum number of filter values specified on a single call is 200'),
  paginationToken: (token: string) => new Ec2Error('InvalidPaginationToken', `Invalid pagination token: ${token}`),
  invalidAction: (action: string) => new Ec2Error('InvalidAction', `The action ${action} is not valid for this web service.`),
  missingAction: () => new Ec2Error('MissingAction', 'The request must contain the parameter Action'),
  missingAuth: () => new Ec2Error('MissingAuthenticationToken', 'The request must contain valid credentials.', 401),
  dryRun: () => new Ec2Error('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412),
  /** IAM refused: EC2's wording, with the encoded authorization message `sts decode-authorization-message` reads. */
  unauthorized: (principal: string, action: string, resource: string, encoded: string) =>
    new Ec2Error(
      'UnauthorizedOperation',
      `You are not authorized to perform this operation. User: ${principal} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action. Encoded authorization failure message: ${encoded}`,
      403,
    ),
  /** EC2 could not create the grant on the volume's KMS key for the caller (AttachVolume; seen in kube-aws#393). */
  keyUnusable: (volumeId: string) =>
    new Ec2Error(
      'CustomerKeyHasBeenRevoked',
      `Volume ${volumeId} cannot be attached. The encrypted volume was unable to access the KMS master key.`,
    ),
  imageNotFound: (ids: string[]) => new Ec2Error('InvalidAMIID.NotFound', `The image id '[${ids.join(', ')}]' does not exist`),
  imageMalformed: (id: string) => new Ec2Error('InvalidAMIID.Malformed', `Invalid id: "${id}" (expecting "ami-...")`),
  throttled: () => new Ec2Error('RequestLimitExceeded', 'Request limit exceeded.', 503),
  internal: (message = 'An internal error has occurred') => new Ec2Error('InternalError', message, 500),
};
