import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { readOutbox } from '../../lib/ops/outbox.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { invitationMail, outboxDirectory, uniqueEmail, useTemporaryOutbox } from '../support/team.ts';
import { runAdmin } from '../support/admin.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * A stranger's text, as an attacker sends it (docs/decisions/109): a name with line breaks and a
 * link, a bidi override, a paragraph separator. Every endpoint whose text reaches an e-mail or a list
 * answers 400 `validation` with the contract's body naming the field, and stores nothing; text stored
 * before the rule reaches an e-mail only as quoted data on one of the service's own lines.
 */
let service: LocalService;
let org: TestOrganization;

const phishing = 'Ana,\n\nYour account is locked. Sign in at https://evil.example/login';
const hostileTexts = [phishing, 'Ana\r\nBcc: victim@example.com', 'Ana \u202Egnp.exe', 'Ana\u2028Lima', 'Ana\u2029Lima', 'Ana\tLima', 'Ana\u0085Lima', 'Ana\u0000'];
const mx = findCorridor('USDC', 'MXN', 'MX')!;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Strangers Org');
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
});

afterAll(async () => {
  await service?.stop();
});

function expectRefused(answer: { status: number; body: any }, path: (string | number)[], what: string) {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(400);
  expect(answer.body, what).toMatchObject({ error: 'validation', message: expect.any(String) });
  expect(answer.body.issues.map((issue: { path: unknown }) => issue.path), what).toContainEqual(path);
}

describe('refused where it comes in', () => {
  it('POST /members/invitations: a name with control characters is 400 validation; no member, no e-mail', async () => {
    const before = (await readOutbox(outboxDirectory())).length;
    for (const name of hostileTexts) {
      const email = uniqueEmail('stranger');
      expectRefused(await call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email, name, role: 'viewer' } }), ['name'], JSON.stringify(name));
    }
    const team = await call(service, 'GET', '/members', { apiKey: org.apiKey });
    expect(team.body.members.filter((member: { email: string }) => member.email.startsWith('stranger.'))).toEqual([]);
    expect((await readOutbox(outboxDirectory())).length).toBe(before);
  });

  it('POST and PATCH /recipients: every text field, 400 validation naming it; nothing saved or changed', async () => {
    const saved = await call(service, 'POST', '/recipients', { apiKey: org.apiKey, body: { name: 'Ana Lima', type: 'bank', account: '002010077777777771' } });
    expect(saved.status).toBe(201);
    for (const field of ['name', 'account', 'bankCode', 'bankName', 'city', 'addressLine', 'state', 'postalCode']) {
      for (const text of [phishing, 'x\u202Ey']) {
        expectRefused(await call(service, 'POST', '/recipients', { apiKey: org.apiKey, body: { name: 'Ana Lima', type: 'bank', account: '002010077777777771', [field]: text } }), [field], `POST ${field}`);
        expectRefused(await call(service, 'PATCH', `/recipients/${saved.body.id}`, { apiKey: org.apiKey, body: { [field]: text } }), [field], `PATCH ${field}`);
      }
    }
    const list = await call(service, 'GET', '/recipients', { apiKey: org.apiKey });
    expect(list.body.count).toBe(1);
    expect(list.body.recipients[0]).toMatchObject({ name: 'Ana Lima', account: '002010077777777771', city: null });
  });

  it('POST /treasury/beneficiaries: every text field, 400 validation naming it; nothing registered', async () => {
    const [payee] = sampleOffRampBeneficiaries;
    const valid = { name: payee!.name, accountId: payee!.accountId, bic: payee!.bic, bankName: payee!.bankName, city: payee!.city, addressLine: payee!.addressLine, country: payee!.country, currency: payee!.currency };
    for (const field of ['name', 'accountId', 'bankName', 'city', 'addressLine']) {
      expectRefused(await call(service, 'POST', '/treasury/beneficiaries', { apiKey: org.apiKey, body: { ...valid, [field]: phishing } }), [field], field);
    }
    expect((await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body.count).toBe(0);
  });

  it('POST /transactions and POST /batches: the beneficiary\'s name and the reference; nothing accepted', async () => {
    const base = { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: 'invoice 1', beneficiary: sampleBeneficiary(mx) };
    const named = await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body: { ...base, idempotencyKey: 'stranger-tx-0001', beneficiary: { ...base.beneficiary, name: phishing } } });
    expectRefused(named, ['beneficiary', 'name'], 'beneficiary name');
    const referenced = await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body: { ...base, idempotencyKey: 'stranger-tx-0002', recipientReference: 'inv\u20281' } });
    expectRefused(referenced, ['recipientReference'], 'reference');
    const sender = await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body: { ...base, idempotencyKey: 'stranger-tx-0003', originator: { name: 'Acme\nCorp' } } });
    expectRefused(sender, ['originator', 'name'], 'originator name');
    for (const id of ['stranger-tx-0001', 'stranger-tx-0002', 'stranger-tx-0003']) {
      expect((await call(service, 'GET', `/transactions/${id}`, { apiKey: org.apiKey })).status).toBe(404);
    }
    const batch = await call(service, 'POST', '/batches', {
      apiKey: org.apiKey,
      body: {
        batchId: 'stranger-batch-0001', corridor: base.corridor, provider: mx.routes[0]!.provider,
        items: [{ itemRef: 'a', sendAmount: base.sendAmount, recipientReference: 'salary', beneficiary: { ...base.beneficiary, name: 'Ana\u202E' } }],
      },
    });
    expectRefused(batch, ['items', 0, 'beneficiary', 'name'], 'batch item');
    expect((await call(service, 'GET', '/batches/stranger-batch-0001', { apiKey: org.apiKey })).status).toBe(404);
  });

  it('the ops CLI refuses an organization name on more than one line', async () => {
    const created = await runAdmin(['org', 'create', '--name', 'Evil Corp\n\nYour account is locked', '--kyb', 'approved'], { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    expect(created.status).toBe(2);
    expect(created.stderr).toMatch(/one line/);
  });
});

describe('shown as quoted data where it goes out', () => {
  it('a name stored before the rule reaches the invitation only inside the service\'s own sentence, escaped', async () => {
    const email = uniqueEmail('legacy');
    const invited = await call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email, name: 'Ana', role: 'viewer' } });
    expect(invited.status).toBe(201);
    // As a name written before the rule, straight into the store.
    await dynamo().send(new UpdateCommand({
      TableName: tableName(),
      Key: keys.member(org.organizationId, invited.body.member.id),
      UpdateExpression: 'SET #name = :name',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':name': phishing },
    }));
    const resent = await call(service, 'POST', `/members/${invited.body.member.id}/invitations`, { apiKey: org.apiKey });
    expect(resent.status).toBe(200);
    const { message } = await invitationMail(email);
    const lines = message.text.split(/\r?\n/);
    expect(lines.filter((line) => line.includes('evil.example'))).toEqual([
      'The inviter gave your name as "Ana,\\u{000A}\\u{000A}Your account is locked. Sign in at https://evil.example/login".',
    ]);
    expect(lines.some((line) => line.startsWith('Your account'))).toBe(false);
    expect(message.html).toContain('The inviter gave your name as &#34;Ana,\\u{000A}\\u{000A}Your account is locked.');
  });
});
