import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { corridorCatalogue, sampleBeneficiary } from '#domain/corridors.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * Every list with a cursor, filled with rows whose ids are the longest idempotency keys the
 * service accepts (200 characters): each issued cursor is at most the contract's 512 characters
 * and is accepted back, page after page, until null (issue 10, item 1; docs/decisions/070).
 */
let service: LocalService;
let org: TestOrganization;
let seq = 0;

/** A 200-character key, unique, using the whole allowed alphabet. */
const longKey = (label: string) => {
  const head = `${label}-${Date.now().toString(36)}-${(seq += 1)}-`;
  return head + 'Az09_.:-'.repeat(25).slice(0, 200 - head.length);
};

const mx = corridorCatalogue.find((corridor) => corridor.to === 'MXN')!;

/** Walks a list one row a page; answers the ids seen (each once if paging is right), checking every cursor on the way. */
async function walk(path: string, rowsField: string, idField: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  const separator = path.includes('?') ? '&' : '?';
  for (let pages = 0; pages < 20; pages += 1) {
    const url: string = `${path}${separator}limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const { status, body } = await call(service, 'GET', url, { apiKey: org.apiKey });
    expect(status, `${url}: ${JSON.stringify(body)}`).toBe(200);
    ids.push(...(body[rowsField] as Record<string, string>[]).map((row) => row[idField]!));
    if (body.nextCursor === null) return ids;
    expect(body.nextCursor.length).toBeLessThanOrEqual(512);
    cursor = body.nextCursor;
  }
  throw new Error(`${path} never ended`);
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: 'long-key-cursors', amount: 10_000_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  await service?.stop();
});

describe('cursors of rows with 200-character ids', () => {
  it('GET /transactions: every cursor fits 512 and is accepted back', async () => {
    const made: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const idempotencyKey = longKey('pay');
      const { status, body } = await call(service, 'POST', '/transactions', {
        apiKey: org.apiKey,
        body: {
          idempotencyKey,
          corridor: { to: mx.to, destinationCountry: mx.destinationCountry },
          sendAmount: { amount: '10.00', currency: 'USDC' },
          recipientReference: 'long key',
          beneficiary: sampleBeneficiary(mx),
        },
      });
      expect(status, JSON.stringify(body)).toBe(202);
      made.push(idempotencyKey);
    }
    expect((await walk('/transactions', 'transactions', 'transactionId')).sort()).toEqual(made.sort());
  });

  it('GET /treasury/onramps, whole and by origin: every cursor fits 512 and is accepted back', async () => {
    const wires: string[] = [];
    const pix: string[] = [];
    for (let n = 0; n < 2; n += 1) {
      const wireKey = longKey('onr');
      const wire = await call(service, 'POST', '/treasury/onramp', { apiKey: org.apiKey, body: { idempotencyKey: wireKey, amount: { amount: '1000.00', currency: 'USD' } } });
      expect(wire.status, JSON.stringify(wire.body)).toBe(202);
      wires.push(wireKey);
      const pixKey = longKey('pix');
      const code = await call(service, 'POST', '/treasury/onramp/pix', { apiKey: org.apiKey, body: { idempotencyKey: pixKey, amount: { amount: '500.00' } } });
      expect(code.status, JSON.stringify(code.body)).toBe(202);
      pix.push(pixKey);
    }
    expect((await walk('/treasury/onramps?origin=api', 'onramps', 'onRampId')).sort()).toEqual(wires.sort());
    expect((await walk('/treasury/onramps?origin=pix', 'onramps', 'onRampId')).sort()).toEqual(pix.sort());
    const all = await walk('/treasury/onramps', 'onramps', 'onRampId');
    expect([...all].sort()).toEqual([...wires, ...pix].sort());
  });

  it('GET /treasury/withdrawals: every cursor fits 512 and is accepted back', async () => {
    const made: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const idempotencyKey = longKey('wd');
      const { status, body } = await call(service, 'POST', '/treasury/withdrawals', {
        apiKey: org.apiKey,
        body: { idempotencyKey, amount: { amount: '10.00', currency: 'USDC' }, chain: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' },
      });
      expect(status, JSON.stringify(body)).toBe(202);
      made.push(idempotencyKey);
    }
    expect((await walk('/treasury/withdrawals', 'withdrawals', 'withdrawalId')).sort()).toEqual(made.sort());
  });

  it('GET /treasury/offramps: every cursor fits 512 and is accepted back', async () => {
    const registered = await call(service, 'POST', '/treasury/beneficiaries', { apiKey: org.apiKey, body: sampleOffRampBeneficiaries[0] });
    expect(registered.status).toBe(201);
    const made: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const idempotencyKey = longKey('ofr');
      const { status, body } = await call(service, 'POST', '/treasury/offramp', {
        apiKey: org.apiKey,
        body: { idempotencyKey, amount: { amount: '100.00', currency: 'USDC' }, beneficiaryId: registered.body.id },
      });
      expect(status, JSON.stringify(body)).toBe(202);
      made.push(idempotencyKey);
    }
    expect((await walk('/treasury/offramps', 'offramps', 'offRampId')).sort()).toEqual(made.sort());
  });
});
