import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { AccessDeniedException, FunctionTimedOut, LocalGrants } from '../../lib/local/grants/enforcement.ts';
import { loadDeployedGrants, type DeployedGrants } from '../../lib/local/grants/synthesizedGrants.ts';
import { lambdaEntries, outboxForwarderHandler, sweeperHandler } from '../../lib/aws/handlers.ts';
import { eventRules } from '#contract/events.ts';
import { workflows } from '#contract/workflows.ts';
import { dynamo, tableName } from '#store/client.ts';
import { open, seal } from '#store/secretBox.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';

/**
 * The local grant check (docs/decisions/111): what the simulated stage's templates grant is what
 * the local functions may do. A grant taken out of the synthesized templates ("planted") makes the
 * call that needs it fail here as it would fail in AWS.
 */
let grants: DeployedGrants;

const createBatch = 'functions/api/batches/createBatch.ts';
const getMe = 'functions/api/discovery/getMe.ts';

/** The synthesized grants with one function's statements or settings changed. */
function planted(entry: string, change: (deployed: DeployedGrants['functions'][number]) => void): DeployedGrants {
  const copy = structuredClone(grants);
  const deployed = copy.functions.find((candidate) => candidate.entry === entry);
  if (!deployed) throw new Error(`${entry} is not deployed`);
  change(deployed);
  return copy;
}

function withoutAction(action: string) {
  return (deployed: DeployedGrants['functions'][number]) => {
    deployed.statements = deployed.statements.map((statement) => ({ ...statement, Action: statement.Action?.filter((name) => name !== action) }));
  };
}

function batchBody(batchId: string) {
  return {
    batchId,
    corridor: { to: 'MXN', destinationCountry: 'MX' },
    provider: 'owned-mx-spei',
    items: [{ itemRef: 'ana', sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: 'Grants', beneficiary: { name: 'Ana Ruiz', account: '002010077777777771' } }],
  };
}

beforeAll(async () => {
  grants = await loadDeployedGrants();
});

describe('the grants read from the synthesized simulated stage', () => {
  it('name a deployed function, with its role, timeout and memory, for every handler the wiring invokes', () => {
    const deployed = new Set(grants.functions.map((fn) => fn.entry));
    expect([...lambdaEntries()].filter((entry) => !deployed.has(entry))).toEqual([]);
    const me = grants.functions.find((fn) => fn.entry === getMe)!;
    expect(me).toMatchObject({ timeoutSeconds: 10, memoryMb: 512 });
    expect(me.roleArn).toMatch(/^arn:aws:iam::123456789012:role\//);
    expect(grants.table.arn).toBe('arn:aws:dynamodb:eu-west-1:123456789012:table/payments-simulated');
  });

  it('let POST /batches write its items with BatchWriteItem, and no GET that only reads hold a write', async () => {
    const local = new LocalGrants(grants);
    await expect(local.invoke(createBatch, async () => local.check('dynamodb:BatchWriteItem', grants.table.arn))).resolves.toBeUndefined();
    await expect(local.invoke(getMe, async () => local.check('dynamodb:PutItem', grants.table.arn))).rejects.toThrow(AccessDeniedException);
  });

  it('wire every task, rule target, the stream consumer and the sweeper as the local wiring calls them', () => {
    const local = new LocalGrants(grants);
    for (const workflow of Object.values(workflows)) {
      for (const [placeholder, task] of Object.entries(workflow.tasks)) {
        expect(() => local.checkTaskInvoke(workflow.name, placeholder), `${workflow.name} ${placeholder}`).not.toThrow();
        expect(local.taskEntry(workflow.name, placeholder)).toBe(task.handler);
      }
    }
    for (const rule of eventRules) expect(() => local.checkRuleDelivery(rule.name, rule.target), rule.name).not.toThrow();
    expect(() => local.checkStreamConsumer(outboxForwarderHandler)).not.toThrow();
    expect(() => local.checkScheduledInvoke(sweeperHandler)).not.toThrow();
  });
});

describe('a planted missing grant', () => {
  it('refuses the SDK call, before it is sent, with the error AWS gives, naming the function, action and resource', async () => {
    const local = new LocalGrants(grants);
    const put = () => dynamo().send(new PutCommand({ TableName: tableName(), Item: { pk: 'grants-test', sk: 'x' } }));
    const { installGrants } = await import('../../lib/local/grants/enforcement.ts');
    installGrants(grants);
    try {
      const refused = await local.invoke(getMe, put).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AccessDeniedException);
      expect((refused as Error).name).toBe('AccessDeniedException');
      expect((refused as Error).message).toContain(`${getMe} (role arn:aws:iam::123456789012:role/`);
      expect((refused as Error).message).toContain('not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:eu-west-1:123456789012:table/payments-simulated');
    } finally {
      installGrants(undefined);
    }
  });

  it('refuses a stand-in\'s call too: opening a webhook secret without kms:Decrypt', async () => {
    const { installGrants } = await import('../../lib/local/grants/enforcement.ts');
    const local = installGrants(planted('functions/tasks/webhookDelivery/deliveryStep.ts', withoutAction('kms:Decrypt')))!;
    try {
      const sealed = { by: 'local' as const, iv: '', tag: '', ciphertext: '' };
      await expect(local.invoke('functions/tasks/webhookDelivery/deliveryStep.ts', () => open(sealed, 'org_x'))).rejects.toThrow(/kms:Decrypt on resource: arn:aws:kms:/);
      // The endpoint that seals may not open: only the deliveries are granted Decrypt (docs/decisions/092, 132).
      await expect(local.invoke('functions/api/webhooks/putWebhookEndpoint.ts', () => open(sealed, 'org_x'))).rejects.toThrow(AccessDeniedException);
      await expect(local.invoke(getMe, () => seal('whsec_x', 'org_x'))).rejects.toThrow(/kms:GenerateDataKey/);
    } finally {
      installGrants(undefined);
    }
  });

  it('refuses the wiring: a state machine whose role may not invoke its task', () => {
    const copy = structuredClone(grants);
    const machine = copy.stateMachines.find((candidate) => candidate.name.endsWith('-payment'))!;
    machine.statements = machine.statements.filter((statement) => !statement.Action?.includes('lambda:InvokeFunction'));
    expect(() => new LocalGrants(copy).checkTaskInvoke('payment', Object.keys(workflows.payment.tasks)[0]!)).toThrow(/lambda:InvokeFunction/);
  });

  it('stops a function at its deployed timeout', async () => {
    const local = new LocalGrants(planted(getMe, (deployed) => (deployed.timeoutSeconds = 0.05)));
    const slow = () => new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(local.invoke(getMe, slow)).rejects.toThrow(FunctionTimedOut);
  });
});

describe('through HTTP, as a deployer would meet it', () => {
  let service: LocalService;
  let org: TestOrganization;

  afterAll(async () => {
    await service?.stop();
  });

  it('POST /batches answers 500 when its function may not BatchWriteItem (as it would once deployed), and 202 with the grant', async () => {
    service = await startTestService(undefined, { grants: planted(createBatch, withoutAction('dynamodb:BatchWriteItem')) });
    org = await createTestOrganization(service, 'approved', 'Grants Org');
    const refused = await call(service, 'POST', '/batches', { apiKey: org.apiKey, body: batchBody('grants-batch-1') });
    expect(refused.status).toBe(500);
    expect(refused.body.error).toBe('internal');
    // Only that function lost a grant: the rest of the service answers.
    expect((await call(service, 'GET', '/balance', { apiKey: org.apiKey })).status).toBe(200);
    await service.stop();

    service = await startTestService();
    org = await createTestOrganization(service, 'approved', 'Grants Org');
    const accepted = await call(service, 'POST', '/batches', { apiKey: org.apiKey, body: batchBody('grants-batch-2') });
    expect(accepted.status).toBe(202);
  }, 90_000);

  it('hands each function its deployed timeout: past it less half a second, an endpoint answers its own 503, never Lambda\'s bare 500', async () => {
    await service?.stop();
    // 0.4 s: within the endpoint's half-second margin from the start, so its deadline answers at once.
    service = await startTestService(undefined, { grants: planted(getMe, (deployed) => (deployed.timeoutSeconds = 0.4)) });
    org = await createTestOrganization(service, 'approved', 'Grants Org');
    const answer = await call(service, 'GET', '/me', { apiKey: org.apiKey });
    expect(answer.status).toBe(503);
    expect(answer.body.error).toBe('unavailable');
    expect(answer.headers.get('retry-after')).toBe('1');
    // The same function with its synthesized 10 s answers.
    await service.stop();
    service = await startTestService();
    org = await createTestOrganization(service, 'approved', 'Grants Org');
    expect((await call(service, 'GET', '/me', { apiKey: org.apiKey })).status).toBe(200);
  }, 90_000);
});
