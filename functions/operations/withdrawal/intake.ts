import { ApiError, validationError } from '#platform/errors.ts';
import { keyConflict, keyReused, replayExisting } from '#operations/kit/intake.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import { claimantOf, createOperation, getOperation } from '#store/operations.ts';
import type { CreateWithdrawalBody, WithdrawalAccepted } from '#schemas/withdrawals.ts';
import { refuseHeldKey, screenWithdrawalDestination } from '#operations/compliance/holds.ts';
import { evmAddressProblem } from '#domain/evmAddress.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { formatDecimal, money } from '#domain/money.ts';
import { hashRequest } from '#domain/requestHash.ts';
import { priceWithdrawal, withdrawalAmountOf } from '#operations/withdrawal/pricing.ts';
import { withdrawalCurrency, withdrawalStatusView, type WithdrawalRecord } from '#operations/withdrawal/view.ts';

const noun = 'withdrawal';
const differs = 'a different amount, network or address';

/**
 * POST /treasury/withdrawals: checks, a price, then one write that creates the withdrawal
 * (INITIATED) with the event that starts its workflow. No money moves here: the hold is the
 * workflow's first step, so a withdrawal that does not fit the balance ends FAILED with
 * `insufficient_funds` (the contract gives this POST no such error; docs/decisions/060). The
 * idempotency key is the withdrawal's id, claimed globally, so a retry never sends twice.
 */
export async function acceptWithdrawal(organizationId: string, body: CreateWithdrawalBody): Promise<WithdrawalAccepted> {
  const withdrawalId = body.idempotencyKey;
  const amount = withdrawalAmountOf(body.amount.amount, body.amount.currency, ['amount', 'amount']);
  const problem = evmAddressProblem(body.toAddress);
  if (problem) {
    throw validationError([
      { path: ['toAddress'], message: problem === 'checksum' ? 'mixed-case address whose EIP-55 checksum does not match: check it for a typo' : 'must be an EVM address' },
    ]);
  }
  // What the key is bound to: the amount, network and address, whatever their spelling
  // ("100" and "100.00", an address in either case), so an honest retry is never refused.
  const requestHash = hashRequest({ amount, currency: withdrawalCurrency, network: body.chain, toAddress: body.toAddress.toLowerCase() });

  const earlier = await answerForExisting(organizationId, withdrawalId, requestHash);
  if (earlier) return earlier;
  await refuseHeldKey(organizationId, 'withdrawal', withdrawalId, requestHash, () => keyReused(noun, differs));
  const claimant = await claimantOf('withdrawal', withdrawalId);
  if (claimant !== undefined && claimant !== organizationId) throw keyConflict(noun);
  // A blocked destination: held, nothing stored but the compliance record (decisions 078, 079).
  const held = await screenWithdrawalDestination({ organizationId, withdrawalId, requestHash, toAddress: body.toAddress, network: body.chain, now: new Date() });
  if (held) throw held;

  const home = await homeWalletOf(organizationId);
  if (home.status !== 'active' || !home.chain) {
    throw new ApiError('no_home_wallet', 'The home wallet is not open yet (or not active); nothing was sent.');
  }
  const price = await priceWithdrawal({ homeNetwork: home.chain, network: body.chain, amount, amountPath: ['amount', 'amount'] });

  const at = new Date().toISOString();
  const record: WithdrawalRecord = {
    organizationId,
    kind: 'withdrawal',
    id: withdrawalId,
    status: 'INITIATED',
    requestHash,
    timeline: [{ status: 'INITIATED', at, detail: `${formatDecimal(amount, 6)} ${withdrawalCurrency} to ${body.toAddress} on ${body.chain}` }],
    createdAt: at,
    updatedAt: at,
    amount: amount.toString(),
    network: price.network,
    homeNetwork: home.chain,
    toAddress: body.toAddress,
    crossingFee: price.crossingFee.toString(),
    gasFee: price.gasFee.toString(),
    fee: price.fee.toString(),
    net: price.net.toString(),
    sendAttempts: 0,
    transferId: null,
    txHash: null,
  };
  const outcome = await createOperation(record, { event: { type: 'withdrawal.initiated', data: withdrawalStatusView(record) }, starting: true });
  if ('otherOrganization' in outcome) throw keyConflict(noun);
  if ('existing' in outcome) {
    // A racing identical request won: answer what it stored.
    if (outcome.existing.requestHash !== requestHash) throw keyReused(noun, differs);
    return acceptedView(outcome.existing);
  }
  await startAfterCommit('withdrawal', organizationId, withdrawalId);
  return acceptedView(record);
}

/** The same key again: the stored figures (never re-priced), or 409 when the request differs. */
async function answerForExisting(organizationId: string, withdrawalId: string, requestHash: string): Promise<WithdrawalAccepted | undefined> {
  const existing = await replayExisting(await getOperation<WithdrawalRecord>(organizationId, 'withdrawal', withdrawalId), requestHash, {
    noun,
    differs,
    // A retry after a crash between the commit and the start: starting again runs nothing when it already runs (decision 100).
    startIfStarting: (record) => (record.status === 'INITIATED' ? startAfterCommit('withdrawal', organizationId, withdrawalId) : Promise.resolve()),
  });
  return existing && acceptedView(existing);
}

function acceptedView(record: WithdrawalRecord): WithdrawalAccepted {
  return {
    withdrawalId: record.id,
    amount: money(BigInt(record.amount), withdrawalCurrency),
    network: record.network,
    fee: money(BigInt(record.fee), withdrawalCurrency),
    net: money(BigInt(record.net), withdrawalCurrency),
  };
}
