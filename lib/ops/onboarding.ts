import { createOrganization, type CreatedOrganization, type KybStatus } from '#store/organizations.ts';
import { executionName, workflowEngine } from '#platform/workflow.ts';
import { config } from '#platform/config.ts';

/**
 * Creating an organization (the public API cannot): the organization with its owner key and
 * a home wallet in `provisioning`, then the walletProvisioning workflow that opens the wallet
 * at the custody provider and activates it. Used by the admin CLI and by `npm start`'s demo.
 */
export interface OnboardedOrganization extends CreatedOrganization {
  walletExecution: string;
}

export async function onboardOrganization(input: { name: string; kybStatus: KybStatus }): Promise<OnboardedOrganization> {
  const created = await createOrganization({ ...input, environment: config().SERVICE_ENVIRONMENT });
  const { id, homeWalletId } = created.organization;
  const engine = await workflowEngine();
  const { executionName: walletExecution } = await engine.start('walletProvisioning', executionName(id, homeWalletId), {
    organizationId: id,
    walletId: homeWalletId,
    activationWaitSeconds: 1,
  });
  return { ...created, walletExecution };
}
