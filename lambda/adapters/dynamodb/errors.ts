/**
 * Errors of the DynamoDB volume store. A conditional-write conflict is not an error (it is the
 * `conflict` result callers re-decide on); these are the failures a caller cannot re-decide away.
 */

export class VolumeStoreError extends Error {
  override name = 'VolumeStoreError';
}

/** An item exists under a volume's key but is not a valid volume record. */
export class CorruptItemError extends VolumeStoreError {
  override name = 'CorruptItemError';
  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`corrupt item ${key}: ${problem}`);
  }
}

/** BatchGetItem kept returning these keys unprocessed after every retry. */
export class UnprocessedKeysError extends VolumeStoreError {
  override name = 'UnprocessedKeysError';
  constructor(
    readonly keys: string[],
    attempts: number,
  ) {
    super(
      `${keys.length} keys still unprocessed after ${attempts} BatchGetItem attempts: ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`,
    );
  }
}

/** The caller asked for something the store must never write (a record that fails validation, removing a non-empty volume). */
export class InvalidWriteError extends VolumeStoreError {
  override name = 'InvalidWriteError';
}
