import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { addApiKey, setRateLimit } from '#store/organizations.ts';
import { batchPutAll, dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { getRecipient, markRecipientUsed, newRecipientId, recipientEntity } from '#store/recipients.ts';
import { recipientFieldNames } from '#schemas/recipients.ts';
import { createRecipient, deleteRecipient, listRecipients, updateRecipient } from '#contract/routes.ts';
import { deepStrict, strictly } from '../support/strictSchema.ts';

let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;

const created = deepStrict(createRecipient.responses[201]!.schema!);
const updated = deepStrict(updateRecipient.responses[200]!.schema!);
const deleted = deepStrict(deleteRecipient.responses[200]!.schema!);
const listed = deepStrict(listRecipients.responses[200]!.schema!);


const bank = {
  name: 'Ana Souza',
  type: 'bank',
  account: 'PT50000201231234567890154',
  bankCode: '0002',
  bic: 'CGDIPTPL',
  bankName: 'Caixa Geral',
  country: 'PT',
  city: 'Porto',
  addressLine: 'Rua das Flores 10',
  state: 'Porto',
  postalCode: '4050-262',
  phoneCallingCode: '+351',
  phoneNumber: '912345678',
};
const wallet = { name: 'Treasury cold wallet', type: 'wallet', address: `0x${'b'.repeat(40)}`, networkId: 'base' };

async function create(body: Record<string, unknown>, apiKey = org.apiKey) {
  return call(service, 'POST', '/recipients', { apiKey, body });
}
async function patch(id: string, body: Record<string, unknown>, apiKey = org.apiKey) {
  return call(service, 'PATCH', `/recipients/${encodeURIComponent(id)}`, { apiKey, body });
}
async function remove(id: string, apiKey = org.apiKey) {
  return call(service, 'DELETE', `/recipients/${encodeURIComponent(id)}`, { apiKey });
}
async function list(apiKey = org.apiKey) {
  const response = await call(service, 'GET', '/recipients', { apiKey });
  expect(response.status).toBe(200);
  return strictly(listed, response.body) as { recipients: Record<string, any>[]; count: number };
}
async function saved(body: Record<string, unknown>, apiKey = org.apiKey) {
  const response = await create(body, apiKey);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return strictly(created, response.body);
}

/** A 400 validation whose issues name `path`. */
function expectValidation(response: { status: number; body: any }, path: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body).toEqual({ error: 'validation', message: expect.any(String), issues: expect.any(Array) });
  expect(response.body.issues.length).toBeGreaterThan(0);
  for (const issue of response.body.issues) expect(issue).toEqual({ path: expect.any(Array), message: expect.any(String) });
  expect(response.body.issues.map((issue: { path: unknown }) => issue.path)).toContainEqual(path);
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  other = await createTestOrganization(service, 'approved', 'Other Org');
  // These tests send many requests on purpose; the limiter has its own tests.
  for (const organizationId of [org.organizationId, other.organizationId]) {
    for (const bucket of ['write', 'read'] as const) await setRateLimit(organizationId, bucket, { burst: 100_000, perSecond: 10_000 });
  }
});

afterAll(async () => {
  await service?.stop();
});

describe('POST /recipients', () => {
  it('saves a bank recipient with every field, answering 201 and the recipient', async () => {
    const recipient = await saved(bank);
    expect(recipient).toEqual({ ...bank, id: expect.stringMatching(/^rcp_[0-9A-Z]{26}$/), address: null, networkId: null, lastUsedAt: null, createdAt: expect.any(String), updatedAt: recipient.createdAt });
    // Stored as answered: every documented field, null where absent, under the organization's key.
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.recipient(org.organizationId, recipient.id) }));
    expect(Item).toMatchObject({ entity: 'recipient', organizationId: org.organizationId, ...recipient });
    for (const name of recipientFieldNames) expect(Item, name).toHaveProperty(name);
  });

  it('saves a wallet recipient; the fields not given are present and null', async () => {
    const recipient = await saved(wallet);
    for (const name of recipientFieldNames) if (!(name in wallet)) expect(recipient[name], name).toBeNull();
    expect(recipient).toMatchObject({ ...wallet, lastUsedAt: null });
  });

  it('refuses a bank recipient without an account and a wallet recipient without an address', async () => {
    const { account: _, ...noAccount } = bank;
    expectValidation(await create(noAccount), ['account']);
    expectValidation(await create({ name: 'W', type: 'wallet', networkId: 'base', account: '123' }), ['address']);
  });

  it('is strict: an unknown field is 400 validation naming it', async () => {
    const response = await create({ ...wallet, nickname: 'cold' });
    expectValidation(response, []);
    expect(JSON.stringify(response.body.issues)).toContain('nickname');
    expectValidation(await create({ ...wallet, organizationId: other.organizationId }), []);
  });

  it('bounds every field: 400 with issues naming it, never a 500; the bounds themselves pass', async () => {
    const refused: [string, unknown][] = [
      ['name', ''], ['name', 'x'.repeat(201)], ['name', 42],
      ['type', 'iban'], ['type', null],
      ['account', ''], ['account', 'x'.repeat(141)], ['account', 12345],
      ['bankCode', ''], ['bankCode', 'x'.repeat(41)],
      ['bic', 'ABCDEFG'], ['bic', 'ABCDEFGHIJKL'],
      ['bankName', ''], ['bankName', 'x'.repeat(201)],
      ['country', 'P'], ['country', 'PRT'], ['country', ''],
      ['city', ''], ['city', 'x'.repeat(121)],
      ['addressLine', ''], ['addressLine', 'x'.repeat(281)],
      ['state', ''], ['state', 'x'.repeat(101)],
      ['postalCode', ''], ['postalCode', 'x'.repeat(21)],
      ['phoneCallingCode', '+12345'], ['phoneCallingCode', '351a'], ['phoneCallingCode', ''], ['phoneCallingCode', '++1'],
      ['phoneNumber', '123'], ['phoneNumber', '1'.repeat(16)], ['phoneNumber', '91234567a'], ['phoneNumber', '+351912345678'],
      ['address', ''], ['address', 'x'.repeat(201)],
      ['networkId', ''], ['networkId', 'x'.repeat(61)],
      ['bic', null],
    ];
    for (const [field, value] of refused) {
      const response = await create({ ...bank, address: 'x', [field]: value });
      expect(response.status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expectValidation(response, [field]);
    }
    const atTheBounds = {
      name: 'x'.repeat(200), type: 'bank', account: 'x'.repeat(140), bankCode: 'x'.repeat(40), bic: 'x'.repeat(11), bankName: 'x'.repeat(200),
      country: 'XX', city: 'x'.repeat(120), addressLine: 'x'.repeat(280), state: 'x'.repeat(100), postalCode: 'x'.repeat(20),
      phoneCallingCode: '1234', phoneNumber: '1'.repeat(15), address: 'x'.repeat(200), networkId: 'x'.repeat(60),
    };
    expect(await saved(atTheBounds)).toMatchObject(atTheBounds);
    expect(await saved({ ...bank, name: 'x', account: 'x', bic: 'x'.repeat(8), phoneCallingCode: '1', phoneNumber: '1234' })).toMatchObject({ bic: 'xxxxxxxx' });
  });

  it('a body that is not JSON or not an object is refused with a 4xx, never a 500', async () => {
    for (const rawBody of ['{', '[]', 'null', '"bank"']) {
      const response = await call(service, 'POST', '/recipients', { apiKey: org.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status, rawBody).toBeGreaterThanOrEqual(400);
      expect(response.status, rawBody).toBeLessThan(500);
    }
  });
});

describe('GET /recipients', () => {
  it('lists the full set with count, newest first, each recipient complete', async () => {
    const fresh = await createTestOrganization(service, 'approved', 'List Org');
    expect(await list(fresh.apiKey)).toEqual({ recipients: [], count: 0 });
    const first = await saved(bank, fresh.apiKey);
    const second = await saved(wallet, fresh.apiKey);
    const third = await saved({ ...wallet, name: 'Third' }, fresh.apiKey);
    const { recipients, count } = await list(fresh.apiKey);
    expect(count).toBe(3);
    expect(recipients).toEqual([third, second, first]);
  });
});

describe('PATCH /recipients/:id', () => {
  it('changes only the fields given and sets updatedAt', async () => {
    const before = await saved(bank);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await patch(before.id, { city: 'Lisboa' });
    expect(response.status).toBe(200);
    const after = strictly(updated, response.body);
    expect(after).toEqual({ ...before, city: 'Lisboa', updatedAt: expect.any(String) });
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(after.createdAt).toBe(before.createdAt);
    expect((await list()).recipients.find((recipient) => recipient.id === before.id)).toEqual(after);
  });

  it('null clears a field; several fields change at once; an empty body changes nothing but updatedAt', async () => {
    const before = await saved(bank);
    const cleared = strictly(updated, (await patch(before.id, { bic: null, phoneCallingCode: null, phoneNumber: null, name: 'Ana S.' })).body);
    expect(cleared).toEqual({ ...before, bic: null, phoneCallingCode: null, phoneNumber: null, name: 'Ana S.', updatedAt: expect.any(String) });
    const same = await patch(before.id, {});
    expect(same.status).toBe(200);
    expect(strictly(updated, same.body)).toEqual({ ...cleared, updatedAt: expect.any(String) });
    // A wallet recipient may take bank details and lose them again; its account was never required.
    const holder = await saved(wallet);
    expect((await patch(holder.id, { account: '123' })).body.account).toBe('123');
    expect((await patch(holder.id, { account: null })).body.account).toBeNull();
  });

  it('refuses changing type, clearing name, and an unknown field', async () => {
    const recipient = await saved(bank);
    const typeChange = await patch(recipient.id, { type: 'wallet' });
    expectValidation(typeChange, []);
    expect(JSON.stringify(typeChange.body.issues)).toContain('type');
    expectValidation(await patch(recipient.id, { type: 'bank' }), []);
    expectValidation(await patch(recipient.id, { name: null }), ['name']);
    expectValidation(await patch(recipient.id, { name: '' }), ['name']);
    expectValidation(await patch(recipient.id, { nickname: 'x' }), []);
    expect((await list()).recipients.find((row) => row.id === recipient.id)).toEqual(recipient);
  });

  it('bounds every field as on create', async () => {
    const recipient = await saved(bank);
    for (const [field, value] of [
      ['account', 'x'.repeat(141)], ['bic', 'SHORT'], ['country', 'PRT'], ['city', 'x'.repeat(121)], ['phoneNumber', '12'],
      ['phoneCallingCode', '+12345'], ['address', 'x'.repeat(201)], ['networkId', 'x'.repeat(61)], ['postalCode', 7],
    ] as const) {
      expectValidation(await patch(recipient.id, { [field]: value }), [field]);
    }
  });

  it("refuses clearing a bank recipient's account or a wallet recipient's address, and changes nothing", async () => {
    const bankRecipient = await saved(bank);
    const noAccount = await patch(bankRecipient.id, { account: null, city: 'Braga' });
    expectValidation(noAccount, ['account']);
    const walletRecipient = await saved(wallet);
    expectValidation(await patch(walletRecipient.id, { address: null }), ['address']);
    const rows = (await list()).recipients;
    expect(rows.find((row) => row.id === bankRecipient.id)).toEqual(bankRecipient);
    expect(rows.find((row) => row.id === walletRecipient.id)).toEqual(walletRecipient);
    // Replacing them is fine; clearing the other type's field is fine.
    expect((await patch(bankRecipient.id, { account: 'NEW-ACCOUNT', address: null })).status).toBe(200);
  });

  it('404 not_found for an id that does not exist', async () => {
    const response = await patch('rcp_00000000000000000000000000', { city: 'Porto' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'not_found', message: expect.any(String) });
  });
});

describe('DELETE /recipients/:id', () => {
  it('answers the deleted recipient; afterwards GET no longer lists it and PATCH and DELETE are 404', async () => {
    const recipient = await saved(wallet);
    const changed = strictly(updated, (await patch(recipient.id, { name: 'Renamed' })).body);
    const response = await remove(recipient.id);
    expect(response.status).toBe(200);
    expect(strictly(deleted, response.body)).toEqual(changed);
    expect((await list()).recipients.map((row) => row.id)).not.toContain(recipient.id);
    const again = await remove(recipient.id);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'not_found', message: expect.any(String) });
    expect((await patch(recipient.id, { name: 'Back' })).status).toBe(404);
    // The PATCH did not write it back.
    expect(await getRecipient(org.organizationId, recipient.id)).toBeUndefined();
  });
});

describe('another organization', () => {
  it("another organization's recipient is 404, with the same body as one that does not exist", async () => {
    const mine = await saved(bank);
    const missing = 'rcp_01ZZZZZZZZZZZZZZZZZZZZZZZZ';
    const theirPatch = await patch(mine.id, { city: 'Faro' }, other.apiKey);
    const missingPatch = await patch(missing, { city: 'Faro' }, other.apiKey);
    expect(theirPatch.status).toBe(404);
    expect(theirPatch.body).toEqual(missingPatch.body);
    const theirDelete = await remove(mine.id, other.apiKey);
    const missingDelete = await remove(missing, other.apiKey);
    expect(theirDelete.status).toBe(404);
    expect(theirDelete.body).toEqual(missingDelete.body);
    expect(theirDelete.body).toEqual({ error: 'not_found', message: expect.any(String) });
    expect((await list(other.apiKey)).recipients.map((row) => row.id)).not.toContain(mine.id);
    // Untouched for its owner.
    expect((await list()).recipients.find((row) => row.id === mine.id)).toEqual(mine);
  });
});

describe('permissions', () => {
  it('a viewer can list but not create, change or delete (403 forbidden); a member can manage', async () => {
    const viewer = await addApiKey(org.organizationId, { role: 'viewer', environment: 'simulated' });
    const existing = await saved(wallet);
    const refusedCreate = await create(wallet, viewer.apiKey);
    expect(refusedCreate.status).toBe(403);
    expect(refusedCreate.body).toEqual({ error: 'forbidden', message: expect.any(String) });
    expect((await patch(existing.id, { name: 'x' }, viewer.apiKey)).status).toBe(403);
    expect((await remove(existing.id, viewer.apiKey)).status).toBe(403);
    // The route rows carry the permissions (the gate is not re-decided in the handlers).
    expect([listRecipients.permission, createRecipient.permission, updateRecipient.permission, deleteRecipient.permission]).toEqual([
      'recipient.read', 'recipient.manage', 'recipient.manage', 'recipient.manage',
    ]);
    const { recipients, count } = await list(viewer.apiKey);
    expect(count).toBe(recipients.length);
    expect(recipients.find((row) => row.id === existing.id)).toEqual(existing);

    const member = await addApiKey(org.organizationId, { role: 'member', environment: 'simulated' });
    const made = await saved(bank, member.apiKey);
    expect((await patch(made.id, { city: 'Aveiro' }, member.apiKey)).status).toBe(200);
    expect((await remove(made.id, member.apiKey)).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('a PATCH racing a DELETE never resurrects the recipient', async () => {
    for (let round = 0; round < 15; round += 1) {
      const recipient = await saved(bank);
      const [changed, removed] = await Promise.all([patch(recipient.id, { city: `City ${round}` }), remove(recipient.id)]);
      expect(removed.status).toBe(200);
      expect([200, 404]).toContain(changed.status);
      // A PATCH that succeeded ran before the DELETE, so the DELETE answered its change.
      if (changed.status === 200) expect(removed.body.city).toBe(`City ${round}`);
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: tableName(), Key: keys.recipient(org.organizationId, recipient.id), ConsistentRead: true }),
      );
      expect(Item, `round ${round}`).toBeUndefined();
    }
  });

  it('two DELETEs of one recipient: one answers it, the other 404', async () => {
    const recipient = await saved(wallet);
    const answers = await Promise.all([remove(recipient.id), remove(recipient.id)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
  });
});

describe('markRecipientUsed (store, against the service table)', () => {
  it('sets lastUsedAt, never moves it back, leaves updatedAt alone, and never creates a recipient', async () => {
    const recipient = await saved(bank);
    const at = new Date('2030-01-02T03:04:05.678Z');
    const marked = await markRecipientUsed(org.organizationId, recipient.id, at);
    expect(marked).toEqual({ ...recipient, lastUsedAt: at.toISOString() });
    // Seen over HTTP, in the contract's shape.
    expect((await list()).recipients.find((row) => row.id === recipient.id)).toEqual(marked);
    // An earlier use (an item of a batch finishing late) keeps the later time.
    expect(await markRecipientUsed(org.organizationId, recipient.id, new Date('2029-12-31T00:00:00.000Z'))).toEqual(marked);
    const later = new Date('2030-02-01T00:00:00.000Z');
    expect((await markRecipientUsed(org.organizationId, recipient.id, later))?.lastUsedAt).toBe(later.toISOString());
    // A PATCH keeps lastUsedAt.
    expect((await patch(recipient.id, { city: 'Coimbra' })).body.lastUsedAt).toBe(later.toISOString());

    // Another organization's id, a missing one, a deleted one: undefined, and nothing written.
    expect(await markRecipientUsed(other.organizationId, recipient.id, at)).toBeUndefined();
    expect(await getRecipient(other.organizationId, recipient.id)).toBeUndefined();
    expect((await remove(recipient.id)).status).toBe(200);
    expect(await markRecipientUsed(org.organizationId, recipient.id, later)).toBeUndefined();
    expect(await getRecipient(org.organizationId, recipient.id)).toBeUndefined();
  });
});

describe('a bounded list (decision 108)', () => {
  it('of ten racing for the 500th place one is saved and the others are 409 conflict with the limit; the list at the cap stays under 1 MB; a deletion makes room', async () => {
    const full = await createTestOrganization(service, 'approved', 'Full Recipients Org');
    // Every field at its longest.
    const longest = {
      name: 'n'.repeat(200), type: 'bank', account: 'a'.repeat(140), bankCode: 'c'.repeat(40), bic: 'B'.repeat(11), bankName: 'b'.repeat(200),
      country: 'PT', city: 'c'.repeat(120), addressLine: 'l'.repeat(280), state: 's'.repeat(100), postalCode: 'p'.repeat(20),
      phoneCallingCode: '+3510', phoneNumber: '9'.repeat(15), address: 'w'.repeat(200), networkId: 'i'.repeat(60),
    };
    // 499 of them written straight into the table, as an organization from before the cap holds them: counted when the next is saved.
    const at = new Date().toISOString();
    await batchPutAll(Array.from({ length: 499 }, () => {
      const id = newRecipientId();
      return { ...keys.recipient(full.organizationId, id), entity: recipientEntity, organizationId: full.organizationId, id, ...longest, lastUsedAt: null, createdAt: at, updatedAt: at };
    }));
    // Ten at once for the last place: exactly one is saved, whichever counts the list first.
    const racing = await Promise.all(Array.from({ length: 10 }, () => create(longest, full.apiKey)));
    expect(racing.map((answer) => answer.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const last = racing.find((answer) => answer.status === 201)!;
    const refused = racing.find((answer) => answer.status === 409)!;
    expect(refused.body).toEqual({ error: 'conflict', message: expect.stringContaining('500 saved recipients'), limit: 500 });

    const atCap = await list(full.apiKey);
    expect(atCap.count).toBe(500);
    expect(Buffer.byteLength(JSON.stringify(atCap))).toBeLessThan(1_000_000);

    expect((await remove(last.body.id, full.apiKey)).status).toBe(200);
    expect((await create(longest, full.apiKey)).status).toBe(201);
    expect((await create(wallet, full.apiKey)).status).toBe(409);
    expect((await list(full.apiKey)).count).toBe(500);
    // Seeding 499 of the largest recipients and counting them once takes a while on a busy machine.
  }, 120_000);
});

describe('capabilities', () => {
  it('publishes recipients as live', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    expect(body.features.find((feature: { feature: string }) => feature.feature === 'recipients')).toMatchObject({ status: 'live' });
  });
});
