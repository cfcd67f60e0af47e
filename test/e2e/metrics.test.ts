import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { until } from '../support/eventually.ts';
import { creditDeposit } from '#store/ledger.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';

// This file reads the EMF lines the metrics module writes; the others run with metrics off.
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

/** Every EMF line written to stdout while `during` runs, parsed; `during` may look at the lines so far. */
async function emfDuring(during: (seen: () => string[]) => Promise<void>): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(...String(chunk).split('\n').filter((line) => line.includes('"_aws"')));
    return write(chunk as never, ...(rest as []));
  }) as typeof process.stdout.write;
  try {
    await during(() => lines);
  } finally {
    process.stdout.write = write;
  }
  return lines.map((line) => JSON.parse(line) as Record<string, any>);
}

const metricNames = (emf: Record<string, any>) => (emf._aws.CloudWatchMetrics[0].Metrics as { Name: string }[]).map((metric) => metric.Name);

let service: LocalService;
let org: TestOrganization;

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await creditDeposit({ organizationId: org.organizationId, depositId: 'metrics-funding', amount: 1_000_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  await service?.stop();
});

describe('operator metrics', () => {
  it('a payment parked IN_DOUBT emits OperationFunded and OperationParked {operation, status} in namespace Payments', async () => {
    const transactionId = `metrics-${Date.now().toString(36)}`;
    const emitted = await emfDuring(async (seen) => {
      const accepted = await call(service, 'POST', '/transactions', {
        apiKey: org.apiKey,
        body: {
          idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.94', currency: 'USDC' },
          recipientReference: 'metrics', beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
        },
      });
      expect(accepted.status).toBe(202);
      const done = await untilSettled(service, org.apiKey, `/transactions/${transactionId}`);
      expect(done.state).toBe('IN_DOUBT');
      // The task counts the parking after its write: the state can be read a moment before the line is out.
      await until(async () => seen(), (lines) => lines.some((line) => line.includes('"OperationParked"')), { what: 'the OperationParked metric line' });
    });
    const parked = emitted.filter((emf) => metricNames(emf).includes('OperationParked'));
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ operation: 'payment', status: 'IN_DOUBT', OperationParked: 1, service: 'payments' });
    expect(parked[0]!._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'Payments', Dimensions: [expect.arrayContaining(['operation', 'status'])] });
    const funded = emitted.filter((emf) => metricNames(emf).includes('OperationFunded'));
    expect(funded).toHaveLength(1);
    expect(funded[0]).toMatchObject({ operation: 'payment', OperationFunded: 1 });
    expect(emitted.some((emf) => metricNames(emf).includes('OperationCompleted'))).toBe(false);
  });
});
