import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { startTestService } from '../support/service.ts';
import { executionName } from '#platform/workflow.ts';
import { dynamo } from '#store/client.ts';
import { getWallet, newWalletId, walletItem } from '#store/wallets.ts';

/**
 * The engine `npm start` wires is no looser than Step Functions: its Wait states read their path
 * (a bad value a task answers fails the execution, as in AWS), and a name is taken for good.
 */
let service: LocalService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

describe('the engine of the local service', () => {
  it('fails an execution whose task answers a negative wait, instead of waiting a fixed time', async () => {
    const organizationId = 'org_local_engine';
    const walletId = newWalletId();
    await dynamo().send(new TransactWriteCommand({ TransactItems: [walletItem({ organizationId, walletId, home: true })] }));
    const name = executionName(organizationId, walletId);
    await service.runner.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: -5 });
    const outcome = await service.runner.waitFor(name);
    expect(outcome.status).toBe('FAILED');
    expect(outcome.history).toEqual(['CreateWallet', 'WaitForActivation']);
    expect((await getWallet(organizationId, walletId))?.status).toBe('provisioning');
    // Finished, the name stays taken (Step Functions keeps it 90 days).
    expect(await service.runner.start('walletProvisioning', name, { organizationId, walletId })).toEqual({ executionName: name, started: false });
  });
});
