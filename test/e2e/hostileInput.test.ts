import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { creditDeposit, readBalance } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { notImplementedHandler, routeKey, routes, type RouteDefinition } from '#wiring/routes.ts';

/**
 * Non-negotiable 5, walked from the route table: every built endpoint, given malformed, oversized
 * or hostile input in its body, its query and its path, answers a 4xx with the contract's error
 * body, never a 500, and the money stored does not change. A new endpoint is walked as soon as its
 * row has a handler: nothing here lists endpoints.
 */
let service: LocalService;
let org: TestOrganization;

const built = routes.filter((definition) => definition.handler !== notImplementedHandler && definition.auth === 'key');

/** Values that have broken parsers, number handling, key sizes or templating somewhere. */
const hostileValues: unknown[] = [
  null, true, -1, 0, 1e309, Number.MAX_SAFE_INTEGER + 2, '', ' ', '-1', '-0', '0', '1e3', '1e309', 'NaN', 'Infinity', '0x10', '1.', '.5',
  '1.0000000000000000000001', '9'.repeat(400), '１２３', '\u0000', '\ud800', '<script>alert(1)</script>', '${7*7}', "' OR '1'='1",
  '../../etc/passwd', 'x'.repeat(100_000), [], [1, 2], {}, { $gt: '' }, { __proto__: { polluted: true } },
];

/** Top-level (and one level down) field names of a zod object schema. */
function fieldsOf(schema: z.ZodType | undefined): { path: string[]; inner: boolean }[] {
  let current: unknown = schema;
  while (current instanceof z.ZodPipe || current instanceof z.ZodDefault || current instanceof z.ZodOptional) {
    current = current instanceof z.ZodPipe ? (current as z.ZodPipe).in : (current as z.ZodDefault | z.ZodOptional).unwrap();
  }
  if (!(current instanceof z.ZodObject)) return [];
  const out: { path: string[]; inner: boolean }[] = [];
  for (const [name, field] of Object.entries(current.shape as Record<string, z.ZodType>)) {
    out.push({ path: [name], inner: false });
    for (const inner of fieldsOf(field)) out.push({ path: [name, ...inner.path], inner: true });
  }
  return out;
}

function withValue(path: string[], value: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  let cursor = body;
  for (const [index, name] of path.entries()) {
    if (index === path.length - 1) cursor[name] = value;
    else cursor = (cursor[name] = {}) as Record<string, unknown>;
  }
  return body;
}

function pathOf(definition: RouteDefinition, id = 'hostile-0001'): string {
  return definition.path.replace(/\{[^}]+\}/g, id);
}

function expectContractError(definition: RouteDefinition, label: string, answer: { status: number; body: any }) {
  const where = `${routeKey(definition)} ${label}`.slice(0, 200);
  expect(answer.status, where).not.toBe(500);
  expect(answer.status, where).toBeLessThan(600);
  if (answer.status >= 400) expect(answer.body, where).toMatchObject({ error: expect.any(String), message: expect.any(String) });
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Hostile Input Org');
  await setRateLimits(org.organizationId, { burst: 1_000_000, perSecond: 100_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: 'hostile-funding', amount: 1_000_000_000n, rail: 'wire', memo: 'test funding' });
});

afterAll(async () => {
  await service?.stop();
});

describe('hostile input on every built endpoint', () => {
  it('whole bodies of the wrong shape, nesting or size: 4xx with the error body', async () => {
    const deep = JSON.parse(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`) as unknown;
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`k${index}`, index]));
    const bodies: [string, string][] = [
      ['null', 'null'], ['a number', '42'], ['a string', '"x"'], ['an array', '[{}]'], ['deep nesting', JSON.stringify(deep)], ['5000 keys', JSON.stringify(wide)],
      ['prototype pollution', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'], ['truncated JSON', '{"a":'],
      ['a BOM', '\ufeff{}'], ['NUL bytes', '{"a":"\u0000"}'],
    ];
    for (const definition of built.filter((d) => d.method !== 'GET' && d.method !== 'DELETE')) {
      for (const [label, raw] of bodies) {
        const answer = await call(service, definition.method, pathOf(definition), { apiKey: org.apiKey, rawBody: raw, headers: { 'content-type': 'application/json' } });
        expectContractError(definition, label, answer);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('each field of each body set to each hostile value: 4xx (or a success the schema allows), never 500', async () => {
    for (const definition of built.filter((d) => d.request?.body)) {
      for (const { path } of fieldsOf(definition.request!.body)) {
        const answers = await Promise.all(
          hostileValues.map(async (value) => [value, await call(service, definition.method, pathOf(definition), { apiKey: org.apiKey, body: withValue(path, value) })] as const),
        );
        for (const [value, answer] of answers) expectContractError(definition, `${path.join('.')}=${JSON.stringify(value)?.slice(0, 40)}`, answer);
      }
    }
  }, 300_000);

  it('each query parameter set to each hostile value, and repeated: 4xx, never 500', async () => {
    for (const definition of built.filter((d) => d.request?.query)) {
      for (const { path, inner } of fieldsOf(definition.request!.query)) {
        if (inner) continue;
        // Raw escapes too: a NUL, an invalid escape, a lone surrogate as UTF-8 bytes.
        const texts = [
          ...hostileValues.filter((v) => (typeof v === 'string' && v !== '\ud800') || typeof v === 'number').map((v) => encodeURIComponent(String(v))),
          '%00', '%ZZ', '%ED%A0%80',
        ];
        const answers = await Promise.all(texts.map(async (text) => [text, await call(service, 'GET', `${pathOf(definition)}?${path[0]}=${text}`, { apiKey: org.apiKey })] as const));
        for (const [text, answer] of answers) expectContractError(definition, `?${path[0]}=${text.slice(0, 40)}`, answer);
        const repeated = await call(service, 'GET', `${pathOf(definition)}?${path[0]}=1&${path[0]}=2`, { apiKey: org.apiKey });
        expectContractError(definition, `?${path[0]} twice`, repeated);
      }
    }
  }, 120_000);

  it('hostile path ids: 4xx, never 500', async () => {
    const ids = ['%00', '..%2F..', encodeURIComponent('😀'.repeat(300)), 'x'.repeat(3000), '%E0%A4%A', encodeURIComponent("' OR 1=1 --"), 'OPID%23withdrawal%23x'];
    for (const definition of built.filter((d) => d.path.includes('{'))) {
      for (const id of ids) {
        const answer = await call(service, definition.method, pathOf(definition, id), { apiKey: org.apiKey, ...(definition.method === 'POST' || definition.method === 'PATCH' || definition.method === 'PUT' ? { body: {} } : {}) });
        expectContractError(definition, `id ${id.slice(0, 40)}`, answer);
      }
    }
  });

  it('and the money stored is what it was: the ledger balances', async () => {
    const balance = await readBalance(org.organizationId);
    // Hostile input may at most have started a valid operation (a field the schema allows); it never creates or loses money.
    expect(balance.available + balance.held + balance.settling).toBeLessThanOrEqual(1_000_000_000n);
    await expectLedgerInvariant(org.organizationId);
  });
});
