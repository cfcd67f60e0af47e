import { ApiError } from '#platform/errors.ts';
import { complianceRecordItem, getComplianceHold, putComplianceRecord, type HeldOperation } from '#store/transactions.ts';

/**
 * What a screening hit (functions/core/screening.ts) does wherever money could reach a listed
 * party: a compliance record with the account masked, and the contract's 403 `compliance_hold`
 * answer, which carries the held request's id and never says which list or name matched
 * (decisions 043 and 078). Payments, batch items, off-ramp beneficiaries, off-ramps and
 * withdrawals all answer through here.
 */

const notStarted: Record<HeldOperation, string> = {
  payment: 'This payment is held for compliance review and was not started.',
  beneficiary: 'This beneficiary is held for compliance review and was not registered.',
  offramp: 'This off-ramp is held for compliance review and was not started; nothing was paid.',
  withdrawal: 'This withdrawal is held for compliance review and was not started; nothing was sent.',
};

export function complianceHold(operation: HeldOperation, id: string): ApiError {
  return new ApiError('compliance_hold', `${notStarted[operation]} Do not retry it automatically.`, { transactionId: id });
}

/** Records the hold (once: a racing identical request's record stands) and answers it. */
export async function holdForCompliance(record: Parameters<typeof complianceRecordItem>[0]): Promise<ApiError> {
  await putComplianceRecord(complianceRecordItem(record));
  return complianceHold(record.operation ?? 'payment', record.transactionId);
}

/**
 * A held key is spent (the contract: do not retry it automatically): the same request answers the
 * same hold, another request under it is the operation's own key-reuse error.
 */
export async function refuseHeldKey(organizationId: string, operation: HeldOperation, id: string, requestHash: string, keyReused: () => ApiError): Promise<void> {
  const hold = await getComplianceHold(organizationId, operation, id);
  if (!hold) return;
  if (hold.requestHash !== requestHash) throw keyReused();
  throw complianceHold(operation, id);
}
