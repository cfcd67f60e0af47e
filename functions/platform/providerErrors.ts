/**
 * The errors every provider port throws, in one place. Their `name` is what the workflows'
 * Retry and Catch clauses match (a class does not survive the trip through Step Functions, a
 * name does), so a name here is part of the workflow contract.
 */

/** Transient: the provider did not answer and nothing was created there. Safe to retry. */
export class ProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

/** Permanent: no adapter for this environment. Not retried; the workflow fails. */
export class ProviderNotConfigured extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderNotConfigured';
  }
}

/**
 * The payout call went out and no answer came back (a timeout, a dropped connection): the
 * payout may or may not exist at the provider. Never retried blindly, since a resubmission
 * could pay twice; the payment parks IN_DOUBT until someone (or a status query) settles it.
 */
export class PayoutUnanswered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayoutUnanswered';
  }
}
