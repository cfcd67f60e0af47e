import { creditDeposit, readBalance } from '#store/ledger.ts';
import { countChecks, endOf, fail, ledgerHolds, movementsAgree } from './checks.ts';
import { beneficiary, toAddress } from './commands.ts';
import type { Operation } from './model.ts';
import type { ChaosOrganization, World } from './world.ts';

/**
 * The edges issue 29 names, run once before the random workload (`npm run chaos`):
 * - N concurrent copies of each money-moving POST with one key: one operation, one movement;
 * - 100 concurrent debits of 10 USDC against a balance of 500: exactly 50 go through.
 * Withdrawals are the debit: the contract refuses none at intake for funds, so all 100 are taken
 * and the balance decides at the pull, where the ledger's condition is the only guard.
 */
/** The edges' operations take longer than the workload's: a hundred workflows at once. */
const ended = (world: World, organization: ChaosOrganization, kind: Operation['kind'], id: string, statusPath: string) => endOf(world, organization, { kind, id, statusPath }, 180_000);

/** `copies` copies at once of each money-moving POST: one id, and (once ended) one movement per step. */
export async function copiesEdge(world: World, run: string, copies: number): Promise<number> {
  const organization = await world.organization(`${run}-copies`);
  const requests = [
    { kind: 'payment' as const, path: '/transactions', body: { idempotencyKey: `edge-pay-${run}`, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '12.00', currency: 'USDC' }, recipientReference: 'edge', beneficiary }, id: (body: any) => body?.transactionId, status: (id: string) => `/transactions/${id}` },
    { kind: 'withdrawal' as const, path: '/treasury/withdrawals', body: { idempotencyKey: `edge-wd-${run}`, amount: { amount: '13.00', currency: 'USDC' }, chain: 'base', toAddress }, id: (body: any) => body?.withdrawalId, status: (id: string) => `/treasury/withdrawals/${id}` },
  ];
  const operations: Operation[] = [];
  const finalStates = new Map<string, string>();
  for (const request of requests) {
    const answers = await Promise.all(Array.from({ length: copies }, () => world.request('POST', request.path, organization.apiKey, request.body)));
    const ids = new Set(answers.filter((answer) => answer.status === 202).map((answer) => request.id(answer.body)));
    const others = answers.filter((answer) => answer.status !== 202 && answer.status !== 409);
    if (ids.size !== 1 || others.length > 0) fail(`${copies} copies of one ${request.kind}: ids ${[...ids].join(', ')}; other answers ${others.map((answer) => answer.status).join(', ')}`);
    const id = [...ids][0]!;
    operations.push({ kind: request.kind, id, organization: 0, ends: [], statusPath: request.status(id) });
    finalStates.set(id, await ended(world, organization, request.kind, id, request.status(id)));
  }
  movementsAgree(operations, await ledgerHolds(organization.organizationId), finalStates);
  countChecks(`${copies} concurrent copies: one operation, one movement per step`, requests.length);
  return copies * requests.length;
}

/** 100 withdrawals of 10 USDC at once against exactly 500: exactly 50 are sent, 50 fail with nothing moved. */
export async function debitsEdge(world: World, run: string): Promise<number> {
  const organization = await world.organization(`${run}-debits`);
  // The organization starts with the harness's opening balance; this one must hold exactly 500.
  await ledgerHolds(organization.organizationId);
  const { available } = await readBalance(organization.organizationId);
  const target = 500_000_000n;
  if (available > target) {
    // Down to 500 by one withdrawal of the difference, ended before the edge starts.
    const answer = await world.request('POST', '/treasury/withdrawals', organization.apiKey, { idempotencyKey: `edge-trim-${run}`, amount: { amount: ((available - target) / 1_000_000n).toString(), currency: 'USDC' }, chain: 'base', toAddress });
    if (answer.status !== 202) fail(`trimming the balance answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const state = await ended(world, organization, 'withdrawal', answer.body.withdrawalId, `/treasury/withdrawals/${answer.body.withdrawalId}`);
    if (state !== 'SENT') fail(`trimming the balance ended ${state}`);
  } else if (available < target) {
    await creditDeposit({ organizationId: organization.organizationId, depositId: `edge-top-${run}`, amount: target - available, rail: 'wire', memo: 'edge top-up' });
  }
  const ids = Array.from({ length: 100 }, (_, index) => `edge-debit-${run}-${index}`);
  const answers = await Promise.all(ids.map((idempotencyKey) => world.request('POST', '/treasury/withdrawals', organization.apiKey, { idempotencyKey, amount: { amount: '10.00', currency: 'USDC' }, chain: 'base', toAddress })));
  const refused = answers.filter((answer) => answer.status !== 202);
  if (refused.length > 0) fail(`a debit of the 100 answered ${refused[0]!.status}: ${JSON.stringify(refused[0]!.body)}`);
  const states = await Promise.all(ids.map((id) => ended(world, organization, 'withdrawal', id, `/treasury/withdrawals/${id}`)));
  const sent = states.filter((state) => state === 'SENT').length;
  if (sent !== 50 || states.some((state) => state !== 'SENT' && state !== 'FAILED')) {
    // The odd ones' own words (state, detail, failure): what the person on call reads first.
    const odd = ids.filter((_, index) => states[index] !== 'SENT' && states[index] !== 'FAILED');
    const said = await Promise.all(odd.map(async (id) => JSON.stringify((await world.request('GET', `/treasury/withdrawals/${id}`, organization.apiKey)).body)));
    fail(`100 debits of 10 against 500: ${sent} sent (${[...new Set(states)].join(', ')}), not exactly 50${said.length > 0 ? `; not sent nor failed: ${said.join('; ')}` : ''}`);
  }
  const operations: Operation[] = ids.map((id) => ({ kind: 'withdrawal', id, organization: 0, ends: [], statusPath: '' }));
  movementsAgree(operations, await ledgerHolds(organization.organizationId), new Map(ids.map((id, index) => [id, states[index]!])));
  countChecks('100 debits of 10 against 500: exactly 50');
  return 100;
}
