import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey } from '#domain/apiKeys.ts';
import { authorizeAndCharge } from '#store/access.ts';
import { dynamo } from '#store/client.ts';
import { createOrganization, revokeApiKey } from '#store/organizations.ts';
import { useFreshTable } from '../support/table.ts';

/**
 * A transaction that holds the organization item for a moment (a key added by the ops CLI checks
 * the organization in it) makes real DynamoDB refuse the single UpdateItem that charges a
 * request's rate bucket with TransactionConflictException (DynamoDB Local does not reproduce the
 * timing, so it is injected here; a GetItem never conflicts). The refused write changed nothing:
 * the charge waits it out instead of answering 500, and a key that is gone is still 401.
 */
let conflictsToInject = 0;
let injected = 0;

beforeAll(async () => {
  await useFreshTable('access');
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      if (conflictsToInject > 0 && 'UpdateExpression' in (args.input as object)) {
        conflictsToInject -= 1;
        injected += 1;
        throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: {} });
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectTransactionConflicts' },
  );
});

describe('authentication beside a transaction on the organization item', () => {
  it('waits out a few conflicts and lets the request through', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'Conflicted', kybStatus: 'approved', environment: 'simulated' });
    const key = parseApiKey(apiKey.apiKey, 'simulated')!;
    conflictsToInject = 3;
    injected = 0;
    const result = await authorizeAndCharge(key, 'read');
    expect(injected).toBe(3);
    expect(result.outcome).toBe('allowed');
    if (result.outcome === 'allowed') expect(result.caller).toMatchObject({ organizationId: organization.id, role: 'owner' });
  });

  it('a revoked key is still 401 after a conflict', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'Revoked', kybStatus: 'approved', environment: 'simulated' });
    await revokeApiKey(organization.id, apiKey.keyId);
    conflictsToInject = 1;
    expect((await authorizeAndCharge(parseApiKey(apiKey.apiKey, 'simulated')!, 'read')).outcome).toBe('unauthorized');
  });

  it('gives up after a bounded wait rather than spinning', async () => {
    const { apiKey } = await createOrganization({ name: 'Stuck', kybStatus: 'approved', environment: 'simulated' });
    conflictsToInject = 50;
    await expect(authorizeAndCharge(parseApiKey(apiKey.apiKey, 'simulated')!, 'read')).rejects.toMatchObject({ name: 'TransactionConflictException' });
    conflictsToInject = 0;
  });
});
