import { createOrganization, type CreatedOrganization, type KybStatus } from '#store/organizations.ts';
import { creditDeposit, type JournalEntry } from '#store/ledger.ts';
import { executionName, workflowEngine } from '#platform/workflow.ts';
import { config } from '#platform/config.ts';

/**
 * Creating an organization (the public API cannot): the organization with its owner key and
 * a home wallet in `provisioning`, then the walletProvisioning workflow that opens the wallet
 * at the custody provider and activates it. Used by the admin CLI and by `npm start`'s demo.
 * An optional opening deposit (USDC minor units) is credited through the ledger exactly as a
 * wire deposit would be, so the balance and its journal agree from the first read.
 */
export interface OnboardedOrganization extends CreatedOrganization {
  walletExecution: string;
  /** The journal entry of the opening deposit, when one was asked for. */
  openingDeposit?: JournalEntry;
}

export function openingDepositId(organizationId: string): string {
  return `dep-opening-${organizationId}`;
}

export async function onboardOrganization(input: {
  name: string;
  kybStatus: KybStatus;
  openingDeposit?: bigint;
}): Promise<OnboardedOrganization> {
  const { openingDeposit, ...organization } = input;
  // Refused before anything is written: a half-onboarded organization is worse than none.
  if (openingDeposit !== undefined && openingDeposit <= 0n) throw new Error('the opening deposit must be a positive amount');
  const created = await createOrganization({ ...organization, environment: config().SERVICE_ENVIRONMENT });
  const { id, homeWalletId } = created.organization;
  const deposit =
    openingDeposit === undefined
      ? undefined
      : await creditDeposit({
          organizationId: id,
          depositId: openingDepositId(id),
          amount: openingDeposit,
          rail: 'wire',
          memo: 'simulated opening wire deposit',
        });
  const engine = await workflowEngine();
  const { executionName: walletExecution } = await engine.start('walletProvisioning', executionName(id, homeWalletId), {
    organizationId: id,
    walletId: homeWalletId,
    activationWaitSeconds: 1,
  });
  return { ...created, walletExecution, ...(deposit ? { openingDeposit: deposit } : {}) };
}
