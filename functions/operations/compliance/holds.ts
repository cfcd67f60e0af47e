import { ApiError } from '#platform/errors.ts';
import { complianceRecordItem, getComplianceHold, putComplianceRecord, type HeldOperation } from '#store/transactions.ts';
import type { BeneficiaryView } from '#schemas/offramps.ts';
import { maskAccount } from '#domain/accountMask.ts';
import { screen, screenAddress, screenBeneficiary } from '#domain/screening.ts';

/**
 * What a screening hit (functions/domain/screening.ts) does wherever money could reach a listed
 * party: a compliance record with the account masked, and the contract's 403 `compliance_hold`
 * answer, which carries the held request's id and never says which list or name matched
 * (decisions 043 and 078). One screen per point, each answering `ApiError | undefined` for the
 * caller to throw (an intake) or to end on (a workflow step): a payment (and each batch item,
 * through the same function with its own id), an off-ramp beneficiary at registration
 * (offRampBeneficiaries.ts) and at each off-ramp, a withdrawal's destination.
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

/**
 * The payee of an off-ramp screened again, at acceptance and before any USDC moves: the list may
 * have changed since it was registered. A hit is recorded under the off-ramp's id (account
 * masked) and answered as the hold; undefined when the payee is clear.
 */
export async function screenOffRampPayee(input: {
  organizationId: string; offRampId: string; requestHash: string | null; beneficiary: BeneficiaryView; now: Date;
}): Promise<ApiError | undefined> {
  const { beneficiary } = input;
  const hit = screenBeneficiary(beneficiary.name);
  if (!hit) return undefined;
  return holdForCompliance({
    organizationId: input.organizationId,
    transactionId: input.offRampId,
    operation: 'offramp',
    requestHash: input.requestHash,
    party: hit.party,
    beneficiaryName: beneficiary.name,
    beneficiaryAccountMasked: maskAccount(beneficiary.accountId),
    corridor: null,
    details: { beneficiaryId: beneficiary.id, currency: beneficiary.currency },
    now: input.now,
  });
}

/**
 * A withdrawal's destination screened, at acceptance and again before any USDC is held: a hit is
 * recorded under the withdrawal's id (address masked) and answered as the hold; undefined when clear.
 */
export async function screenWithdrawalDestination(input: {
  organizationId: string; withdrawalId: string; requestHash: string | null; toAddress: string; network: string; now: Date;
}): Promise<ApiError | undefined> {
  const hit = screenAddress(input.toAddress);
  if (!hit) return undefined;
  return holdForCompliance({
    organizationId: input.organizationId,
    transactionId: input.withdrawalId,
    operation: 'withdrawal',
    requestHash: input.requestHash,
    party: hit.party,
    beneficiaryName: null,
    beneficiaryAccountMasked: null,
    corridor: null,
    details: { network: input.network, destinationAddress: maskAccount(input.toAddress) },
    now: input.now,
  });
}

/** A payment's Travel Rule parties and reference, before any value moves: POST /transactions, and each batch item with its own id. */
export async function screenPaymentParties(input: {
  organizationId: string; transactionId: string; requestHash: string; originatorName?: string; beneficiary: { name: string; account: string };
  recipientReference: string; corridor: { to: string; destinationCountry: string }; now: Date;
}): Promise<ApiError | undefined> {
  const hit = screen({ originatorName: input.originatorName, beneficiaryName: input.beneficiary.name, recipientReference: input.recipientReference });
  if (!hit) return undefined;
  return holdForCompliance({
    organizationId: input.organizationId,
    transactionId: input.transactionId,
    requestHash: input.requestHash,
    party: hit.party,
    beneficiaryName: input.beneficiary.name,
    beneficiaryAccountMasked: maskAccount(input.beneficiary.account),
    corridor: input.corridor,
    now: input.now,
  });
}
