import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

const { count } = await import('#platform/metrics.ts');

/** The EMF lines `during` writes to stdout, parsed. */
function emfOf(during: () => void): Record<string, any>[] {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n').filter((line) => line.includes('"_aws"')));
    return true;
  }) as typeof process.stdout.write;
  try {
    during();
  } finally {
    process.stdout.write = write;
  }
  return lines.map((line) => JSON.parse(line) as Record<string, any>);
}

describe('count', () => {
  it('publishes each data point on its own line with exactly its own dimensions, none carried to the next', () => {
    const emitted = emfOf(() => {
      count('OperationParked', { operation: 'payment', status: 'IN_DOUBT' });
      count('OperationFunded', { operation: 'withdrawal' });
      count('OperationFunded', { operation: 'payment' });
    });
    expect(emitted).toHaveLength(3);
    expect(emitted[0]).toMatchObject({ OperationParked: 1, operation: 'payment', status: 'IN_DOUBT', service: 'payments' });
    expect(emitted[0]!._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['service', 'operation', 'status']));
    for (const [line, operation] of [[emitted[1]!, 'withdrawal'], [emitted[2]!, 'payment']] as const) {
      expect(line).toMatchObject({ OperationFunded: 1, operation, service: 'payments' });
      expect(line).not.toHaveProperty('status');
      expect(line).not.toHaveProperty('OperationParked');
      expect([...line._aws.CloudWatchMetrics[0].Dimensions[0]].sort()).toEqual(['operation', 'service']);
    }
  });
});
