import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { config } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { getDepositInstructions } from '#contract/routes.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import { houseAccountsFor } from '#domain/houseAccounts.ts';
import type { DepositInstructions } from '#schemas/deposits.ts';

/**
 * GET /treasury/deposit-instructions (KYB; the gate is the route row's): the organization's one
 * reference, derived from its id (no read beyond authentication), and the house account of each
 * configured currency with only the fields held. With no account configured there is nothing
 * true to show: 501, never an empty list (docs/decisions/053-deposit-instructions.md).
 */
export const handler = endpoint(getDepositInstructions, async ({ caller }) => {
  const { SERVICE_ENVIRONMENT, HOUSE_ACCOUNTS } = config();
  const accounts = houseAccountsFor(SERVICE_ENVIRONMENT, HOUSE_ACCOUNTS);
  if (accounts.length === 0) {
    throw new ApiError(
      'not_implemented',
      `No house bank account is configured on ${SERVICE_ENVIRONMENT}: there is nowhere to wire a deposit yet (HOUSE_ACCOUNTS).`,
      { feature: getDepositInstructions.feature },
    );
  }
  const body: DepositInstructions = {
    reference: depositReferenceOf(caller.organizationId),
    accounts: accounts.map((account) => ({ ...account })),
  };
  return ok(body);
});
