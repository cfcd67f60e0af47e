/**
 * The operation kit's errors, told apart by type (`instanceof`), never by comparing names. A
 * workflow's Catch sees only the `name`, so each keeps a stable one.
 */

/** A step, resolution or view was asked for an operation that does not exist in that organization. */
export class OperationNotFound extends Error {
  constructor(
    readonly noun: string,
    readonly id: string,
  ) {
    super(`${noun} ${id} not found`);
    this.name = 'OperationNotFound';
  }
}

/** A resolution asked for wrongly (an outcome the kind does not have, a missing hash, no note): nothing was written. */
export class InvalidResolution extends Error {
  override name = 'InvalidResolution';
}
