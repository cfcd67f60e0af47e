import { beforeAll, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { cliTarget } from '../../lib/ops/cliTarget.ts';
import { dynamo } from '#store/client.ts';
import { runAdmin } from '../support/admin.ts';

/** The ops CLI against a deployed stage: its credentials, its stage, and what it refuses there. */
let table: string;

beforeAll(async () => {
  table = await useFreshTable('ops-cli');
});

describe('where the ops CLI points', () => {
  it('a stage: the default credential chain untouched, the stage\'s table and state machines', () => {
    const target = cliTarget({ AWS_REGION: 'eu-west-1', AWS_ACCOUNT_ID: '123456789012', AWS_PROFILE: 'payments-prod' }, 'production');
    expect(target).toEqual({
      mode: 'aws',
      environment: 'production',
      set: {
        SERVICE_ENVIRONMENT: 'production',
        TABLE_NAME: 'payments-production',
        WORKFLOW_ARN_PREFIX: 'arn:aws:states:eu-west-1:123456789012:stateMachine:payments-production-',
      },
    });
    expect(() => cliTarget({}, 'production')).toThrow(/AWS_REGION and AWS_ACCOUNT_ID/);
    expect(() => cliTarget({}, 'prod')).toThrow(/one of simulated, sandbox, production/);
  });

  it('a local store: placeholder credentials only for a local endpoint, and only when none are set', () => {
    expect(cliTarget({}, undefined).set).toEqual({
      SERVICE_ENVIRONMENT: 'simulated', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local',
    });
    expect(cliTarget({ DYNAMODB_ENDPOINT: 'http://localhost:8001', AWS_ACCESS_KEY_ID: 'mine', AWS_SECRET_ACCESS_KEY: 'mine' }, undefined).set).toEqual({ SERVICE_ENVIRONMENT: 'simulated' });
    expect(cliTarget({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com', SERVICE_ENVIRONMENT: 'sandbox' }, undefined).set).toEqual({ SERVICE_ENVIRONMENT: 'sandbox' });
  });
});

describe('org create --deposit', () => {
  const admin = (...args: string[]) => runAdmin(args, { TABLE_NAME: table });

  it('is refused outside simulated (unbacked USDC), with nothing created', async () => {
    for (const stage of ['sandbox', 'production']) {
      const refused = await runAdmin(['org', 'create', '--name', 'Acme', '--kyb', 'approved', '--deposit', '1000'], { TABLE_NAME: table, SERVICE_ENVIRONMENT: stage });
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`--deposit credits unbacked USDC: refused in ${stage}`);
    }
    const { Items } = await dynamo().send(new ScanCommand({ TableName: table }));
    expect(Items ?? []).toEqual([]);
  });

  it('is taken in simulated', async () => {
    const created = await admin('org', 'create', '--name', 'Acme', '--kyb', 'approved', '--deposit', '12.50');
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ deposit: { amount: '12500000', currency: 'USDC', scale: 6 } });
  });
});
