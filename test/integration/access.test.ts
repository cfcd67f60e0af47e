import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, parseApiKey } from '#domain/apiKeys.ts';
import { authorizeAndCharge, openGate, type Gate } from '#store/access.ts';
import { dynamo, tableName } from '#store/client.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addApiKey, createOrganization, getOrganization, listApiKeys, moveAllLegacyKeys, revokeApiKey, setRateLimit } from '#store/organizations.ts';
import { keys } from '#store/keys.ts';
import { until } from '../support/eventually.ts';
import { useFreshTable } from '../support/table.ts';

/**
 * What authenticating a request costs (docs/decisions/076, 077): the key item's read and the
 * bucket's charge go out together for a key this process has seen authenticate (one round trip
 * of latency), one after the other for any other key, and not at all (the charge) for a key that
 * does not authenticate. Every call is held for a while here so that overlap is unmistakable.
 */
interface Sent {
  kind: 'read' | 'write';
  startedAt: number;
  endedAt: number;
}

let recording: Sent[] | undefined;
const holdMs = 150;

beforeAll(async () => {
  await useFreshTable('access-order');
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      if (!recording) return next(args);
      const sent: Sent = { kind: 'UpdateExpression' in (args.input as object) ? 'write' : 'read', startedAt: performance.now(), endedAt: 0 };
      recording.push(sent);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      try {
        return await next(args);
      } finally {
        sent.endedAt = performance.now();
      }
    },
    { step: 'initialize', name: 'holdAndRecord' },
  );
});

async function recorded<T>(fn: () => Promise<T>): Promise<{ result: T; sent: Sent[] }> {
  recording = [];
  try {
    const result = await fn();
    return { result, sent: recording };
  } finally {
    recording = undefined;
  }
}

function overlap(a: Sent, b: Sent): boolean {
  return a.startedAt < b.endedAt && b.startedAt < a.endedAt;
}

describe('one round trip for a key seen before, and no charge for a key that does not authenticate', () => {
  it('first sight reads the key, then charges; after that both go out together', async () => {
    const { apiKey } = await createOrganization({ name: 'Round Trips', kybStatus: 'approved', environment: 'simulated' });
    const key = parseApiKey(apiKey.apiKey, 'simulated')!;

    const first = await recorded(() => authorizeAndCharge(key, 'read'));
    expect(first.result.outcome).toBe('allowed');
    expect(first.sent.map((sent) => sent.kind)).toEqual(['read', 'write']);
    expect(overlap(first.sent[0]!, first.sent[1]!)).toBe(false);

    const next = await recorded(() => authorizeAndCharge(key, 'read'));
    expect(next.result.outcome).toBe('allowed');
    expect(next.sent.map((sent) => sent.kind).sort()).toEqual(['read', 'write']);
    expect(overlap(next.sent[0]!, next.sent[1]!)).toBe(true);
  });

  it('a wrong secret and an unknown key id cost one read and write nothing', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'Guessed', kybStatus: 'approved', environment: 'simulated' });
    const forged = parseApiKey(`${apiKey.apiKey.slice(0, -1)}${apiKey.apiKey.endsWith('A') ? 'B' : 'A'}`, 'simulated')!;
    const unknown = parseApiKey(issueApiKey('simulated', organization.id).apiKey, 'simulated')!;
    for (const key of [forged, unknown]) {
      const { result, sent } = await recorded(() => authorizeAndCharge(key, 'read'));
      expect(result.outcome).toBe('unauthorized');
      expect(sent.map((call) => call.kind)).toEqual(['read']);
    }
    expect((await getOrganization(organization.id))?.tatRead).toBeUndefined();
  });

  it('a key revoked after it authenticated: its charge is given back, and the next attempt writes nothing', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'Revoked Later', kybStatus: 'approved', environment: 'simulated' });
    const key = parseApiKey(apiKey.apiKey, 'simulated')!;
    // A bucket that does not refill while the test runs: a token taken and not given back shows.
    await setRateLimit(organization.id, 'read', { burst: 10, perSecond: 0.001 });
    expect((await authorizeAndCharge(key, 'read')).outcome).toBe('allowed');
    const tat = (await getOrganization(organization.id))!.tatRead!;
    await revokeApiKey(organization.id, key.keyId);

    const revoked = await recorded(() => authorizeAndCharge(key, 'read'));
    expect(revoked.result.outcome).toBe('unauthorized');
    expect(revoked.sent.map((sent) => sent.kind).sort()).toEqual(['read', 'write', 'write']);
    expect((await getOrganization(organization.id))!.tatRead).toBe(tat);

    const again = await recorded(() => authorizeAndCharge(key, 'read'));
    expect(again.result.outcome).toBe('unauthorized');
    expect(again.sent.map((sent) => sent.kind)).toEqual(['read']);
  });
});

/** A route no viewer may call, behind the KYB gate: POST /transactions' gate. */
const payments: Gate = { admits: (grant) => grant.role !== 'viewer', kyb: true };

describe('what the caller may do is decided before its bucket is charged (decision 107)', () => {
  it('a role the route refuses costs reads only, the first time and every time after, and takes no token', async () => {
    const { organization } = await createOrganization({ name: 'Viewer Refused', kybStatus: 'approved', environment: 'simulated' });
    const viewer = parseApiKey((await addApiKey(organization.id, { role: 'viewer', environment: 'simulated' })).apiKey, 'simulated')!;

    const first = await recorded(() => authorizeAndCharge(viewer, 'initiate', payments));
    expect(first.result).toMatchObject({ outcome: 'refused', refusal: 'role', grant: { role: 'viewer' }, rate: { 'ratelimit-remaining': '30' } });
    expect(first.sent.map((sent) => sent.kind)).toEqual(['read', 'read']);

    // Seen now: its key and its bucket are read together, one round trip, and nothing is written.
    const next = await recorded(() => authorizeAndCharge(viewer, 'initiate', payments));
    expect(next.result.outcome).toBe('refused');
    expect(next.sent.map((sent) => sent.kind)).toEqual(['read', 'read']);
    expect(overlap(next.sent[0]!, next.sent[1]!)).toBe(true);
    expect((await getOrganization(organization.id))?.tatInitiate).toBeUndefined();

    // A route it may call is charged as ever.
    const allowed = await recorded(() => authorizeAndCharge(viewer, 'read'));
    expect(allowed.result.outcome).toBe('allowed');
    expect(allowed.sent.map((sent) => sent.kind)).toEqual(['read', 'write']);
  });

  it('a role lowered after the key was seen: the token taken beside the read is given back', async () => {
    const { organization } = await createOrganization({ name: 'Role Lowered', kybStatus: 'approved', environment: 'simulated' });
    await setRateLimit(organization.id, 'initiate', { burst: 30, perSecond: 0.001 });
    const issued = await addApiKey(organization.id, { role: 'admin', environment: 'simulated' });
    const key = parseApiKey(issued.apiKey, 'simulated')!;
    expect((await authorizeAndCharge(key, 'initiate', payments)).outcome).toBe('allowed');
    const tat = (await getOrganization(organization.id))!.tatInitiate;
    // What PATCH /members does to a member's key item (decision 077).
    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.apiKey(organization.id, key.keyId), UpdateExpression: 'SET #role = :viewer', ExpressionAttributeNames: { '#role': 'role' }, ExpressionAttributeValues: { ':viewer': 'viewer' } }),
    );

    const lowered = await recorded(() => authorizeAndCharge(key, 'initiate', payments));
    expect(lowered.result).toMatchObject({ outcome: 'refused', refusal: 'role', grant: { role: 'viewer' }, rate: { 'ratelimit-remaining': '29' } });
    expect(lowered.sent.map((sent) => sent.kind).sort()).toEqual(['read', 'write', 'write']);
    expect((await getOrganization(organization.id))!.tatInitiate).toBe(tat);

    const again = await recorded(() => authorizeAndCharge(key, 'initiate', payments));
    expect(again.result.outcome).toBe('refused');
    expect(again.sent.map((sent) => sent.kind)).toEqual(['read', 'read']);
  });

  it('an organization the KYB gate refuses: the charge’s own condition says so, and moves nothing', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'KYB Pending', kybStatus: 'pending', environment: 'simulated' });
    const key = parseApiKey(apiKey.apiKey, 'simulated')!;
    for (const attempt of ['first sight', 'seen']) {
      const refused = await recorded(() => authorizeAndCharge(key, 'initiate', payments));
      expect(refused.result, attempt).toMatchObject({ outcome: 'refused', refusal: 'kyb', grant: { role: 'owner' }, rate: { 'ratelimit-remaining': '30' } });
      expect(refused.sent.map((sent) => sent.kind).sort(), attempt).toEqual(['read', 'write']);
    }
    expect((await getOrganization(organization.id))?.tatInitiate).toBeUndefined();
    // The same key on a route without the gate is charged.
    expect((await authorizeAndCharge(key, 'initiate', { ...payments, kyb: false })).outcome).toBe('allowed');
    expect((await getOrganization(organization.id))?.tatInitiate).toBeDefined();
  });
});

describe('a charge that lost its race is tried again at the time it goes out', () => {
  it('held past the bucket’s span while a later request filled it, it is still allowed: the bucket has room now', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'Held Charge', kybStatus: 'approved', environment: 'simulated' });
    const key = parseApiKey(apiKey.apiKey, 'simulated')!;
    // A bucket whose whole span is one second: a request charged more than a second after another
    // finds it idle again.
    await setRateLimit(organization.id, 'initiate', { burst: 1_000, perSecond: 1_000 });
    let held: 'not yet' | 'holding' | 'released' = 'not yet';
    const holdMs = 1_500;
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> };
        if (held === 'not yet' && input.UpdateExpression && input.ExpressionAttributeNames?.['#tat'] === 'tatInitiate') {
          held = 'holding';
          await new Promise((resolve) => setTimeout(resolve, holdMs));
          held = 'released';
        }
        return next(args);
      },
      { step: 'initialize', name: 'holdOneCharge' },
    );
    try {
      const startedAt = Date.now();
      const slow = authorizeAndCharge(key, 'initiate');
      await until(async () => held, (state) => state !== 'not yet', { what: 'the slow charge to go out', timeoutMs: 5_000 });
      // Another request, charged while the first one's write is on its way (as at a moment 1.2 s
      // later): its write lands first, so the first one's condition fails and it tries again.
      expect((await authorizeAndCharge(key, 'initiate', openGate, startedAt + 1_200)).outcome).toBe('allowed');
      const answer = await slow;
      expect(held).toBe('released');
      // Measured at its first attempt's moment, the bucket held 1.2 s of a 1 s span: a 429 with room.
      expect(answer.outcome).toBe('allowed');
    } finally {
      dynamo().middlewareStack.remove('holdOneCharge');
    }
  });
});

describe('a table written before key items (decision 077)', () => {
  it('org migrate-keys moves the keys map out of the organization item, once', async () => {
    const { organization, apiKey } = await createOrganization({ name: 'Old Layout', kybStatus: 'approved', environment: 'simulated' });
    const key = parseApiKey(apiKey.apiKey, 'simulated')!;
    const [item] = await listApiKeys(organization.id);
    // The old layout: the key's entry in the organization item, no key item.
    await revokeApiKey(organization.id, key.keyId);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organization.id),
        UpdateExpression: 'SET #keys = :keys',
        ExpressionAttributeNames: { '#keys': 'keys' },
        ExpressionAttributeValues: { ':keys': { [key.keyId]: { hash: item!.hash, role: 'owner', prefix: item!.prefix, createdAt: item!.createdAt } } },
      }),
    );
    expect((await authorizeAndCharge(key, 'read')).outcome).toBe('unauthorized');

    const moved = await moveAllLegacyKeys();
    expect(moved.keys).toBeGreaterThanOrEqual(1);
    expect((await getOrganization(organization.id))?.keys).toBeUndefined();
    expect(await listApiKeys(organization.id)).toEqual([item]);
    const allowed = await authorizeAndCharge(key, 'read');
    expect(allowed.outcome).toBe('allowed');
    if (allowed.outcome === 'allowed') expect(allowed.caller).toMatchObject({ organizationId: organization.id, role: 'owner' });
    expect(await moveAllLegacyKeys()).toEqual({ organizations: 0, keys: 0 });
  });
});
