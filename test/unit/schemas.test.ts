import { readFileSync, readdirSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { DecimalString, IdempotencyKey } from '#schemas/common.ts';
import { CreateBatchBody } from '#schemas/batches.ts';
import { CreatePixOnRampBody, PixOnRampQuoteQuery } from '#schemas/deposits.ts';
import { CreateOffRampBody } from '#schemas/offramps.ts';
import { CreateRecipientBody, UpdateRecipientBody } from '#schemas/recipients.ts';
import { StatementQuery } from '#schemas/statements.ts';
import { PutNotificationPreferencesBody } from '#schemas/notifications.ts';
import { InviteMemberBody } from '#schemas/team.ts';
import { Beneficiary, ListTransactionsQuery, TransactionList } from '#schemas/transactions.ts';
import { deepStrict } from '../support/strictSchema.ts';
import { ListWithdrawalsQuery } from '#schemas/withdrawals.ts';
import { routes } from '#contract/routes.ts';

const key = 'order-2026-0001';
const beneficiary = { name: 'Ana Silva', account: '12345678' };
const amount = { amount: '10.50', currency: 'USDC' };
const uuid = '0b7e9f5c-3f2a-4c1d-9e8b-7a6f5d4c3b2a';

/**
 * A valid body for every route that takes one, and whether the contract makes it strict. Keyed by
 * operationId so that a new body in the route table fails the coverage test until it is listed here.
 */
const bodies: Record<string, { strict: boolean; valid: Record<string, unknown> }> = {
  createQuote: { strict: false, valid: { corridor: { to: 'BRL', destinationCountry: 'BR' }, sendAmount: amount } },
  createTransaction: {
    strict: false,
    valid: { idempotencyKey: key, corridor: { to: 'BRL', destinationCountry: 'BR' }, sendAmount: amount, recipientReference: 'inv-1', beneficiary },
  },
  createBatch: {
    strict: false,
    valid: {
      batchId: key,
      corridor: { to: 'BRL', destinationCountry: 'BR' },
      provider: 'rail-a',
      items: [{ itemRef: 'row-1', sendAmount: amount, recipientReference: 'r1', beneficiary }],
    },
  },
  createOnRamp: { strict: false, valid: { idempotencyKey: key, amount: { amount: '1000', currency: 'USD' } } },
  createPixOnRamp: { strict: true, valid: { idempotencyKey: key, amount: { amount: '100.25' } } },
  createWithdrawal: {
    strict: false,
    valid: { idempotencyKey: key, amount, chain: 'base', toAddress: `0x${'a'.repeat(40)}` },
  },
  createBeneficiary: {
    strict: false,
    valid: {
      name: 'ACME GmbH',
      accountId: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      bankName: 'Commerzbank',
      city: 'Berlin',
      addressLine: 'Street 1',
      country: 'DE',
      currency: 'EUR',
    },
  },
  createOffRamp: { strict: false, valid: { idempotencyKey: key, amount, beneficiaryId: uuid } },
  createRecipient: { strict: true, valid: { name: 'Ana', type: 'bank', account: '123' } },
  updateRecipient: { strict: true, valid: { name: 'Ana B.' } },
  inviteMember: { strict: true, valid: { email: 'ana@example.com', role: 'member' } },
  acceptInvitation: { strict: true, valid: { token: 'tok_123' } },
  updateMember: { strict: true, valid: { role: 'viewer' } },
  putWebhookEndpoint: { strict: true, valid: { url: 'https://hooks.example.com/payments' } },
  putNotificationPreferences: { strict: true, valid: { events: ['offramp.paid'] } },
  simulateWire: { strict: true, valid: { amount: { amount: '250.00', currency: 'EUR' } } },
  topUpEurc: { strict: true, valid: { amount: '100.50' } },
};

const withBody = routes.filter((definition) => definition.request?.body);

function accepts(schema: z.core.$ZodType, value: unknown): boolean {
  return z.safeParse(schema, value).success;
}

describe('request bodies of the route table', () => {
  it('every body in the route table has a sample here', () => {
    expect(withBody.map((definition) => definition.operationId).sort()).toEqual(Object.keys(bodies).sort());
  });

  for (const definition of withBody) {
    const sample = bodies[definition.operationId];
    const body = definition.request!.body!;
    it(`${definition.operationId}: accepts its sample and ${sample?.strict ? 'refuses' : 'drops'} an unknown field`, () => {
      expect(sample).toBeDefined();
      const result = body.safeParse(sample!.valid);
      expect(result.error?.issues).toBeUndefined();
      const withExtra = body.safeParse({ ...sample!.valid, organizationId: 'org_other' });
      if (sample!.strict) {
        expect(withExtra.success).toBe(false);
        expect(withExtra.error?.issues[0]?.code).toBe('unrecognized_keys');
      } else {
        expect(withExtra.success).toBe(true);
        expect(withExtra.data).not.toHaveProperty('organizationId');
      }
    });
  }

  it('strict bodies refuse an unknown field nested in their amount too', () => {
    expect(accepts(CreatePixOnRampBody, { idempotencyKey: key, amount: { amount: '1', extra: 1 } })).toBe(false);
    const simulateWire = routes.find((definition) => definition.operationId === 'simulateWire')!.request!.body!;
    expect(accepts(simulateWire, { amount: { amount: '1', currency: 'EUR', extra: 1 } })).toBe(false);
  });
});

describe('the largest amount (docs/decisions/072)', () => {
  /** Every `amount` string in a sample, by its path: top-level, in an amount object, in batch items. */
  function amountPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
    if (typeof value !== 'object' || value === null) return [];
    return Object.entries(value).flatMap(([name, inner]) => {
      const here = [...path, Array.isArray(value) ? Number(name) : name];
      return name === 'amount' && typeof inner === 'string' ? [here] : amountPaths(inner, here);
    });
  }

  function withAmount(sample: Record<string, unknown>, path: (string | number)[], amount: string): Record<string, unknown> {
    const copy = structuredClone(sample);
    let cursor: any = copy;
    for (const name of path.slice(0, -1)) cursor = cursor[name];
    cursor[path.at(-1)!] = amount;
    return copy;
  }

  it('every amount of every body in the route table (batches included) takes a billion whole units and refuses more', () => {
    const withAmounts = Object.entries(bodies).filter(([, sample]) => amountPaths(sample.valid).length > 0);
    expect(withAmounts.map(([operationId]) => operationId)).toEqual(expect.arrayContaining(['createBatch', 'createTransaction', 'topUpEurc', 'createPixOnRamp']));
    for (const [operationId, sample] of withAmounts) {
      const body = withBody.find((definition) => definition.operationId === operationId)!.request!.body!;
      for (const path of amountPaths(sample.valid)) {
        for (const largest of ['1000000000', '1000000000.00', '0999999999.99']) expect(accepts(body, withAmount(sample.valid, path, largest)), `${operationId} ${largest}`).toBe(true);
        for (const past of ['1000000000.01', '1000000001', `1${'0'.repeat(32)}`]) {
          const result = body.safeParse(withAmount(sample.valid, path, past));
          expect(result.success, `${operationId} ${past}`).toBe(false);
          expect(result.error!.issues.find((issue) => issue.path.join('.') === path.join('.'))?.message, `${operationId} ${past}`).toMatch(/at most 1000000000/);
        }
      }
    }
  });

  it('and so does every amount in a query string', () => {
    const queries = routes.filter((definition) => definition.request?.query && 'amount' in ((definition.request.query as z.ZodMiniObject).shape ?? {}));
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const definition of queries) {
      const query = definition.request!.query!;
      expect(query.safeParse({ amount: `1${'0'.repeat(32)}` }).error?.issues.find((issue) => issue.path[0] === 'amount')?.message, definition.operationId).toMatch(/at most 1000000000/);
      expect(query.safeParse({ amount: '1000000000' }).error?.issues.find((issue) => issue.path[0] === 'amount'), definition.operationId).toBeUndefined();
    }
  });
});

describe('decimal strings and idempotency keys', () => {
  it('refuses what is not a plain decimal string', () => {
    for (const bad of ['1.', '-1', '1e3', ' 1', '1 ', '.5', '', '+1', '1,5', '0x10', 'NaN']) {
      expect(accepts(DecimalString, bad), bad).toBe(false);
    }
    for (const good of ['0', '1', '12.50', '0.000001', '1000000']) {
      expect(accepts(DecimalString, good), good).toBe(true);
    }
  });

  it('takes 8 to 200 characters from letters, digits and _ . : -', () => {
    expect(accepts(IdempotencyKey, 'a'.repeat(7))).toBe(false);
    expect(accepts(IdempotencyKey, 'a'.repeat(8))).toBe(true);
    expect(accepts(IdempotencyKey, 'a'.repeat(200))).toBe(true);
    expect(accepts(IdempotencyKey, 'a'.repeat(201))).toBe(false);
    expect(accepts(IdempotencyKey, 'Ab0_.:-x')).toBe(true);
    expect(accepts(IdempotencyKey, 'order 0001')).toBe(false);
    expect(accepts(IdempotencyKey, 'order/0001')).toBe(false);
  });
});

describe('batches', () => {
  const item = (n: number) => ({ itemRef: `row-${n}`, sendAmount: amount, recipientReference: `r${n}`, recipientId: 'rec_1' });
  const batch = (items: unknown[]) => ({ ...bodies.createBatch!.valid, items });

  it('carries 1 to 1000 items', () => {
    expect(accepts(CreateBatchBody, batch([]))).toBe(false);
    expect(accepts(CreateBatchBody, batch([item(1)]))).toBe(true);
    expect(accepts(CreateBatchBody, batch(Array.from({ length: 1000 }, (_, n) => item(n))))).toBe(true);
    expect(accepts(CreateBatchBody, batch(Array.from({ length: 1001 }, (_, n) => item(n))))).toBe(false);
  });

  it('bounds itemRef by its pattern', () => {
    for (const itemRef of ['a', 'A-z_0.9:x', 'x'.repeat(64)]) {
      expect(accepts(CreateBatchBody, batch([{ ...item(1), itemRef }])), itemRef).toBe(true);
    }
    for (const itemRef of ['', 'x'.repeat(65), 'row 1', 'row/1', 'ré']) {
      expect(accepts(CreateBatchBody, batch([{ ...item(1), itemRef }])), itemRef).toBe(false);
    }
  });

  it('needs exactly one of beneficiary and recipientId per item', () => {
    const { recipientId: _, ...neither } = item(1);
    expect(accepts(CreateBatchBody, batch([neither]))).toBe(false);
    expect(accepts(CreateBatchBody, batch([{ ...item(1), beneficiary }]))).toBe(false);
    expect(accepts(CreateBatchBody, batch([{ ...neither, beneficiary }]))).toBe(true);
  });

  it('bounds provider to 1..64 characters', () => {
    expect(accepts(CreateBatchBody, { ...batch([item(1)]), provider: '' })).toBe(false);
    expect(accepts(CreateBatchBody, { ...batch([item(1)]), provider: 'p'.repeat(65) })).toBe(false);
  });
});

describe('beneficiary of a payment', () => {
  it('checks the phone calling code and number patterns', () => {
    const withPhone = (callingCode: string, number: string) => accepts(Beneficiary, { ...beneficiary, phone: { callingCode, number } });
    expect(withPhone('+55', '11987654321')).toBe(true);
    expect(withPhone('55', '1234')).toBe(true);
    expect(withPhone('+1234', '1'.repeat(15))).toBe(true);
    expect(withPhone('+12345', '1234')).toBe(false);
    expect(withPhone('++1', '1234')).toBe(false);
    expect(withPhone('', '1234')).toBe(false);
    expect(withPhone('+55', '123')).toBe(false);
    expect(withPhone('+55', '1'.repeat(16))).toBe(false);
    expect(withPhone('+55', '12-34-56')).toBe(false);
  });

  it('bounds the other fields as the contract does', () => {
    expect(accepts(Beneficiary, { ...beneficiary, name: '' })).toBe(false);
    expect(accepts(Beneficiary, { ...beneficiary, account: 'x'.repeat(141) })).toBe(false);
    expect(accepts(Beneficiary, { ...beneficiary, bic: 'ABCDEFG' })).toBe(false);
    expect(accepts(Beneficiary, { ...beneficiary, bic: 'ABCDEFGH' })).toBe(true);
    expect(accepts(Beneficiary, { ...beneficiary, country: 'BRA' })).toBe(false);
    expect(accepts(Beneficiary, { name: 'Ana' })).toBe(false);
  });
});

describe('recipients', () => {
  it('needs an account for a bank recipient and an address for a wallet recipient', () => {
    expect(accepts(CreateRecipientBody, { name: 'Ana', type: 'bank' })).toBe(false);
    expect(accepts(CreateRecipientBody, { name: 'Ana', type: 'wallet' })).toBe(false);
    expect(accepts(CreateRecipientBody, { name: 'Ana', type: 'wallet', address: `0x${'b'.repeat(40)}`, networkId: 'base' })).toBe(true);
    expect(accepts(CreateRecipientBody, { name: 'Ana', type: 'iban', account: '1' })).toBe(false);
  });

  it('bounds the fields of the create body', () => {
    const bank = { name: 'Ana', type: 'bank', account: '1' };
    expect(accepts(CreateRecipientBody, { ...bank, name: 'x'.repeat(201) })).toBe(false);
    expect(accepts(CreateRecipientBody, { ...bank, bankCode: 'x'.repeat(40) })).toBe(true);
    expect(accepts(CreateRecipientBody, { ...bank, bankCode: 'x'.repeat(41) })).toBe(false);
    expect(accepts(CreateRecipientBody, { ...bank, city: 'x'.repeat(121) })).toBe(false);
    expect(accepts(CreateRecipientBody, { ...bank, phoneCallingCode: '+351', phoneNumber: '912345678' })).toBe(true);
    expect(accepts(CreateRecipientBody, { ...bank, phoneNumber: '12' })).toBe(false);
    expect(accepts(CreateRecipientBody, { ...bank, networkId: 'x'.repeat(61) })).toBe(false);
  });

  it('updates: null clears a field, type cannot change, name cannot be cleared', () => {
    expect(UpdateRecipientBody.parse({ bic: null, city: 'Porto' })).toEqual({ bic: null, city: 'Porto' });
    expect(accepts(UpdateRecipientBody, { type: 'wallet' })).toBe(false);
    expect(accepts(UpdateRecipientBody, { name: null })).toBe(false);
    expect(accepts(UpdateRecipientBody, { account: '' })).toBe(false);
  });
});

describe('pages and queries', () => {
  it('coerces limit from the query string and bounds it per list', () => {
    expect(ListTransactionsQuery.parse({ limit: '500' })).toEqual({ limit: 500 });
    for (const limit of ['0', '501', '-1', '1.5', 'ten', '']) {
      expect(accepts(ListTransactionsQuery, { limit }), limit).toBe(false);
    }
    expect(accepts(ListWithdrawalsQuery, { limit: '200' })).toBe(true);
    expect(accepts(ListWithdrawalsQuery, { limit: '201' })).toBe(false);
  });

  it('bounds the cursor: 1..512 for transactions; non-empty (at most 1024, decision 007) for withdrawals', () => {
    expect(accepts(ListTransactionsQuery, { cursor: 'c'.repeat(512) })).toBe(true);
    expect(accepts(ListTransactionsQuery, { cursor: 'c'.repeat(513) })).toBe(false);
    expect(accepts(ListTransactionsQuery, { cursor: '' })).toBe(false);
    expect(accepts(ListWithdrawalsQuery, { cursor: 'c'.repeat(1024) })).toBe(true);
    expect(accepts(ListWithdrawalsQuery, { cursor: 'c'.repeat(1025) })).toBe(false);
    expect(accepts(ListWithdrawalsQuery, { cursor: '' })).toBe(false);
  });

  it('PIX amounts have at most two decimals and the currency defaults to BRL', () => {
    expect(PixOnRampQuoteQuery.parse({ amount: '100.25' })).toEqual({ amount: '100.25', currency: 'BRL' });
    expect(accepts(PixOnRampQuoteQuery, { amount: '100.255' })).toBe(false);
    expect(accepts(PixOnRampQuoteQuery, { amount: '100', currency: 'USD' })).toBe(false);
    expect(accepts(CreatePixOnRampBody, { idempotencyKey: key, amount: { amount: '1.001' } })).toBe(false);
  });

  it('statement times need an offset', () => {
    expect(accepts(StatementQuery, { from: '2026-01-01T00:00:00+02:00', to: '2026-02-01T00:00:00.000Z' })).toBe(true);
    expect(accepts(StatementQuery, { from: '2026-01-01' })).toBe(false);
    expect(accepts(StatementQuery, { to: '2026-01-01T00:00:00' })).toBe(false);
  });
});

describe('other per-endpoint bounds', () => {
  it('off-ramp quote ids and chains follow their patterns', () => {
    const base = bodies.createOffRamp!.valid;
    expect(accepts(CreateOffRampBody, { ...base, quoteId: 'oq_abcd-1234' })).toBe(true);
    expect(accepts(CreateOffRampBody, { ...base, quoteId: 'oq_abcdefgh' })).toBe(true);
    expect(accepts(CreateOffRampBody, { ...base, quoteId: `oq_${'a'.repeat(80)}` })).toBe(true);
    expect(accepts(CreateOffRampBody, { ...base, quoteId: `oq_${'a'.repeat(81)}` })).toBe(false);
    expect(accepts(CreateOffRampBody, { ...base, quoteId: 'oq_1234567' })).toBe(false);
    expect(accepts(CreateOffRampBody, { ...base, quoteId: 'q_12345678' })).toBe(false);
    expect(accepts(CreateOffRampBody, { ...base, chain: 'Base' })).toBe(false);
    expect(accepts(CreateOffRampBody, { ...base, beneficiaryId: 'not-a-uuid' })).toBe(false);
  });

  it('notification preferences take at most 7 known event types', () => {
    expect(accepts(PutNotificationPreferencesBody, { events: [] })).toBe(true);
    expect(accepts(PutNotificationPreferencesBody, { events: ['transaction.created'] })).toBe(false);
    expect(accepts(PutNotificationPreferencesBody, { events: Array.from({ length: 8 }, () => 'offramp.paid') })).toBe(false);
  });

  it('invitations bound the e-mail to 320 characters and the name to 1..200', () => {
    const local = 'a'.repeat(64);
    const domain = `${'d'.repeat(60)}.example.com`;
    expect(accepts(InviteMemberBody, { email: `${local}@${domain}`, role: 'admin' })).toBe(true);
    expect(accepts(InviteMemberBody, { email: 'not-an-email', role: 'admin' })).toBe(false);
    const long = `${'a'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(63)}.com`;
    expect(long.length).toBeGreaterThan(320);
    expect(accepts(z.email(), long)).toBe(true);
    expect(accepts(InviteMemberBody, { email: long, role: 'admin' })).toBe(false);
    expect(accepts(InviteMemberBody, { email: 'ana@example.com', role: 'admin', name: '' })).toBe(false);
    expect(accepts(InviteMemberBody, { email: 'ana@example.com', role: 'superuser' })).toBe(false);
  });
});

describe('the strict view the e2e tests read answers with (test/support/strictSchema.ts)', () => {
  it('refuses an undocumented field at any depth of a zod/mini schema, through arrays and optionals', () => {
    const list = deepStrict(TransactionList);
    const row = { transactionId: 't', corridor: { from: 'USDC', to: 'EUR', destinationCountry: 'DE' }, sendAmount: { amount: '100', currency: 'USDC', scale: 2 }, recipientReference: 'r', createdAt: '2026-11-28T09:30:00.000Z' };
    const page = { transactions: [row], count: 1, nextCursor: null, hasMore: false };
    expect(z.safeParse(TransactionList, { ...page, extra: true }).success).toBe(true);
    expect(z.safeParse(list, { ...page, extra: true }).success).toBe(false);
    expect(z.safeParse(list, { ...page, transactions: [{ ...row, sendAmount: { ...row.sendAmount, extra: 1 } }] }).success).toBe(false);
    expect(z.safeParse(list, page).success).toBe(true);
  });
});

describe('declarations', () => {
  it('declares every module-level value of schemas/ that calls anything as `/* @__PURE__ */ schema(() => ...)`, so a bundle leaves out what it does not read (docs/decisions/165)', () => {
    const folder = new URL('../../schemas/', import.meta.url);
    const undeclared: string[] = [];
    // Text for the document, not a schema: its one call joins the CSV columns.
    const notSchemas = new Set(['statements.ts statementCsvDescription']);
    for (const name of readdirSync(folder).filter((file) => file.endsWith('.ts'))) {
      const text = readFileSync(new URL(name, folder), 'utf8');
      const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
      const callsAnything = (node: ts.Node): boolean => ts.isCallExpression(node) || ts.isNewExpression(node) || (!ts.isFunctionLike(node) && node.getChildren(source).some(callsAnything));
      for (const statement of source.statements.filter(ts.isVariableStatement)) {
        for (const { name: declared, initializer } of statement.declarationList.declarations) {
          if (!initializer || !callsAnything(initializer)) continue;
          const annotated = text.slice(initializer.getFullStart(), initializer.getStart()).includes('@__PURE__');
          const wrapped = ts.isCallExpression(initializer) && initializer.expression.getText(source) === 'schema' && initializer.arguments.length === 1 && ts.isArrowFunction(initializer.arguments[0]!);
          const named = `${name} ${declared.getText(source)}`;
          if ((!annotated || !wrapped) && !notSchemas.has(named)) undeclared.push(named);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });
});
