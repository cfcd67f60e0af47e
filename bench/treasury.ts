/**
 * Treasury operations on the local stack, for `npm run bench` (bench/run.ts calls treasuryFigures),
 * each driven through the contract's own endpoints as an integrator would:
 * - a simulated wire deposit (POST /treasury/onramps/simulate-wire, a `dep-` deposit) from the 202
 *   to DELIVERED;
 * - a withdrawal (POST /treasury/withdrawals) from the 202 to SENT;
 * - an off-ramp (POST /treasury/offramp) from the 202 to PAID;
 * and, one operation at a time in a quiet system, the DynamoDB calls (the request, and everything
 * after it) and workflow state transitions each costs. Every simulated delay is zero, as in the
 * payments bench. Calls on the simulators' books (SIM… items) and the local runner's execution
 * records are counted apart: a real provider and Step Functions keep those.
 */
import { performance } from 'node:perf_hooks';
import type { LocalService } from '../lib/local/service.ts';
import { onboardOrganization } from '../lib/ops/onboarding.ts';
import { dynamoCallCount, observeConsumedCapacity } from '#store/client.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { outsideTheService } from './payments.ts';

export interface TreasuryBenchOptions {
  service: LocalService;
  seconds: number;
  log: (message: string) => void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { p50: round(at(50), 1), p99: round(at(99), 1), max: round(sorted.at(-1) ?? NaN, 1), samples: sorted.length };
}

interface Operation {
  name: string;
  /** Starts one; answers the id to poll. */
  start: (seq: number) => Promise<string>;
  statusPath: (id: string) => string;
  /** The end the operation must reach. */
  done: (status: Record<string, unknown>) => boolean;
}

export async function treasuryFigures({ service, seconds, log }: TreasuryBenchOptions) {
  const samples = Math.max(10, Math.round(6 * seconds));
  const counted = 4;
  const { runner, bus } = service;

  log('treasury: onboarding and funding an organization');
  const created = await onboardOrganization({ name: 'Bench Treasury Org', kybStatus: 'approved' });
  await runner.waitFor(created.walletExecution);
  const organizationId = created.organization.id;
  await creditDeposit({ organizationId, depositId: `bench-treasury-${Date.now()}`, amount: 1_000_000_000n * 1_000_000n, rail: 'wire', memo: 'bench funding' });
  await setRateLimits(organizationId, { burst: 100_000_000, perSecond: 1_000_000 });
  const headers = { authorization: `Bearer ${created.apiKey.apiKey}`, 'content-type': 'application/json' };
  const request = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const expect202 = (what: string, answer: { status: number; body: Record<string, any> }) => {
    if (answer.status !== 202 && answer.status !== 201) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  const beneficiary = expect202(
    'POST /treasury/beneficiaries',
    await request('POST', '/treasury/beneficiaries', {
      name: 'Bench Payee GmbH', accountId: 'DE89370400440532013000', bic: 'COBADEFFXXX', bankName: 'Commerzbank', city: 'Berlin',
      addressLine: 'Unter den Linden 1', country: 'DE', currency: 'EUR',
    }),
  );
  const stamp = Date.now().toString(36);
  const operations: Operation[] = [
    {
      name: 'wireDeposit',
      start: async () => String(expect202('simulate-wire', await request('POST', '/treasury/onramps/simulate-wire', { amount: { amount: '1000.00', currency: 'USD' } })).onRampId),
      statusPath: (id) => `/treasury/onramp/${id}`,
      done: (status) => status.state === 'DELIVERED',
    },
    {
      name: 'withdrawal',
      start: async (seq) => {
        const body = { idempotencyKey: `bench-wd-${stamp}-${seq}`, amount: { amount: '10.00', currency: 'USDC' }, chain: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' };
        return String(expect202('POST /treasury/withdrawals', await request('POST', '/treasury/withdrawals', body)).withdrawalId);
      },
      statusPath: (id) => `/treasury/withdrawals/${id}`,
      done: (status) => status.state === 'SENT',
    },
    {
      name: 'offRamp',
      start: async (seq) => {
        const body = { idempotencyKey: `bench-or-${stamp}-${seq}`, amount: { amount: '10.00', currency: 'USDC' }, beneficiaryId: beneficiary.id };
        return String(expect202('POST /treasury/offramp', await request('POST', '/treasury/offramp', body)).offRampId);
      },
      statusPath: (id) => `/treasury/offramp/${id}`,
      done: (status) => status.state === 'PAID',
    },
  ];

  const quiesce = async () => {
    for (;;) {
      await runner.idle();
      await bus.idle();
      const calls = dynamoCallCount();
      await pause(400);
      if (calls === dynamoCallCount()) return;
    }
  };
  const until = async (operation: Operation, id: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { status, body } = await request('GET', operation.statusPath(id));
      if (status === 200 && operation.done(body)) return body;
      if (status === 200 && body.running === false) throw new Error(`${operation.name} ${id} ended without reaching its end: ${JSON.stringify(body)}`);
      if (Date.now() > deadline) throw new Error(`${operation.name} ${id} not done after 60 s: ${JSON.stringify(body)}`);
      await pause(5);
    }
  };

  // Every call attributed to the phase it happens in; the simulators' and the runner's apart.
  let phase = 'idle';
  const tallies = new Map<string, number>();
  const stopObserving = observeConsumedCapacity((record) => {
    const outside = outsideTheService(record.input);
    const name = outside ? `${phase}:${outside}` : phase;
    tallies.set(name, (tallies.get(name) ?? 0) + 1);
    if (outside === 'runner' && record.command === 'PutItem' && phase.endsWith(':request')) phase = phase.replace(/:request$/, ':after');
  });
  const previousCapacityFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  const figures: Record<string, unknown> = {};
  try {
    let seq = 0;
    for (const operation of operations) {
      log(`treasury: ${operation.name}: warming up, counting ${counted}, timing ${samples}`);
      for (let i = 0; i < 2; i += 1) await until(operation, await operation.start((seq += 1)));
      await quiesce();

      const transitionsBefore = runner.stateTransitions;
      for (let i = 0; i < counted; i += 1) {
        await quiesce();
        phase = `${operation.name}:request`;
        const id = await operation.start((seq += 1));
        await quiesce();
        phase = 'idle';
        await until(operation, id);
      }
      const transitions = (runner.stateTransitions - transitionsBefore) / counted;
      const per = (part: string) => round((tallies.get(`${operation.name}:${part}`) ?? 0) / counted);

      const latencies: number[] = [];
      for (let i = 0; i < samples; i += 1) {
        const id = await operation.start((seq += 1));
        const accepted = performance.now();
        await until(operation, id);
        latencies.push(performance.now() - accepted);
      }
      await quiesce();
      figures[operation.name] = {
        acceptedToEndMs: { ...percentiles(latencies), note: 'from the 202 to the end state seen by polling GET every 5 ms, one at a time, every simulated delay zero' },
        perOperation: {
          dynamoCallsInTheRequest: per('request'),
          dynamoCallsAfterTheRequest: per('after'),
          stateTransitions: round(transitions),
          simulatorCalls: round(((tallies.get(`${operation.name}:request:simulator`) ?? 0) + (tallies.get(`${operation.name}:after:simulator`) ?? 0)) / counted),
          localRunnerCalls: round(((tallies.get(`${operation.name}:request:runner`) ?? 0) + (tallies.get(`${operation.name}:after:runner`) ?? 0)) / counted),
          note: "the service's own DynamoDB calls; the simulators' books and the local runner's execution records (kept by the provider and by Step Functions in AWS) apart",
        },
      };
    }
  } finally {
    stopObserving();
    if (previousCapacityFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousCapacityFlag;
  }
  return figures;
}
