import { ulid } from 'ulid';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError, validationError } from '#platform/errors.ts';
import { simulateWire } from '#contract/routes.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import { money } from '#domain/money.ts';
import { houseAccountOf, parseFiat } from '#operations/onRamp/pricing.ts';
import { ingestStatementLine } from '#operations/onRamp/wireDeposits.ts';
import type { SimulatedWire } from '#schemas/sandbox.ts';

/**
 * POST /treasury/onramps/simulate-wire (sandbox): a simulated payer wires the amount quoting the
 * organization's own reference, and the line goes through the very ingestion a bank feed uses
 * (functions/operations/onRamp/wireDeposits.ts): attributed to an open on-ramp, or a `dep-` deposit of its
 * own, or parked (below the minimum: docs/decisions/054).
 */
export const handler = endpoint(simulateWire, async ({ caller, body }) => {
  // The wire is converted and delivered by the on-ramp provider: none here, 501 (nothing ingested).
  const { currency } = body.amount;
  if (!houseAccountOf(currency)) throw new ApiError('unknown_currency', `No house account takes ${currency} wires here, so no wire of it can arrive.`);
  const amount = parseFiat(body.amount.amount, currency, ['amount', 'amount']);
  if (amount <= 0n) throw validationError([{ path: ['amount', 'amount'], message: 'a wire carries a positive amount' }]);
  const reference = depositReferenceOf(caller.organizationId);
  const ingested = await ingestStatementLine({ statementLineId: `sim-${ulid()}`, currency, amount, referenceText: reference });
  const answer: SimulatedWire = {
    simulated: true,
    reference,
    amount: money(amount, currency),
    statementLineId: ingested.statementLineId,
    onRampId: ingested.onRampId,
    disposition: ingested.disposition,
    detail: ingested.detail,
  };
  return ok(answer, 202);
});
