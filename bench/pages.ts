/**
 * A page at depth, for `npm run bench` (bench/run.ts calls pageFigures): GET /transactions of an
 * organization with PAGES_BENCH_ROWS payments (default 100,000), its first page against the page
 * that starts past the first 100,000 rows. The payments are seeded straight into the table with the
 * store's own item builder, cloned from one real RECONCILED payment (bench/statements.ts), so the
 * rows are the size real ones are and the list reads the same index. The deep page's cursor is the
 * one the service would have issued after walking there (the sort key of the row at that depth,
 * signed the same way); a short walk from it checks the cursors it answers are followed as well.
 */
import { performance } from 'node:perf_hooks';
import type { LocalService } from '../lib/local/service.ts';
import { batchPutAll } from '#store/client.ts';
import { encodeCursor } from '#store/cursors.ts';
import { listSortKey } from '#store/keys.ts';
import { benchOrganization, percentiles, round } from './payments.ts';
import { payments, reconciledTemplate } from './statements.ts';

export interface PageBenchOptions {
  service: LocalService;
  log: (message: string) => void;
}

const pageSize = 50;
const rounds = 60;

export async function pageFigures({ service, log }: PageBenchOptions) {
  const depth = Number(process.env.PAGES_BENCH_ROWS ?? 100_000);
  // One page past the depth, so the deep page is a full one.
  const rows = depth + pageSize;
  log('pages: onboarding an organization and paying one real payment as the template');
  const { organizationId, headers } = await benchOrganization(service, 'Bench Pages Org');
  const template = await reconciledTemplate(service, organizationId, headers);

  log(`pages: seeding ${rows} payments of one organization`);
  const start = '2025-01-01T00:00:00.000Z';
  // A second apart: the list sorts by createdAt, then the id.
  const spanMs = rows * 1000;
  const started = performance.now();
  const items = payments(template, 'page', rows, start, spanMs, false);
  await batchPutAll(items);
  const seedSeconds = round((performance.now() - started) / 1000, 1);

  // Newest first: the row at `depth` from the top is the (rows - depth)-th seeded one, counting from 0.
  const lastAbove = items[rows - depth] as { createdAt: string; transactionId: string };
  const deepCursor = await encodeCursor({ list: 'transactions', organizationId }, listSortKey(lastAbove.createdAt, lastAbove.transactionId));
  const auth = { authorization: headers.authorization! };
  const page = async (cursor?: string) => {
    const query = new URLSearchParams({ limit: String(pageSize), ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${service.url}/transactions?${query}`, { headers: auth });
    const body = (await response.json()) as { transactions: { transactionId: string }[]; nextCursor: string | null };
    if (response.status !== 200) throw new Error(`GET /transactions answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };

  // The deep page holds the rows right below the cursor's: the seeded ones just older than it.
  const deep = await page(deepCursor);
  const expected = `bench-page-${String(rows - depth - 1).padStart(6, '0')}`;
  if (deep.transactions[0]?.transactionId !== expected) throw new Error(`the page at depth starts at ${deep.transactions[0]?.transactionId}, not ${expected}`);
  let cursor = deep.nextCursor;
  for (let walked = 0; walked < 3 && cursor; walked += 1) cursor = (await page(cursor)).nextCursor;

  log('pages: timing the first page and the page at depth, interleaved');
  const samples = { first: [] as number[], atDepth: [] as number[] };
  for (let pass = 0; pass < rounds + 10; pass += 1) {
    for (const [name, cursorOf] of [['first', undefined], ['atDepth', deepCursor]] as const) {
      const begun = performance.now();
      await page(cursorOf);
      // The first rounds warm up this process and DynamoDB Local's JIT.
      if (pass >= 10) samples[name].push(performance.now() - begun);
    }
  }
  const first = percentiles(samples.first);
  const atDepth = percentiles(samples.atDepth);
  return {
    settings: { rows, depth, pageSize, roundsTimed: rounds, seedSeconds, note: 'payments seeded with BatchWriteItem from one real RECONCILED payment; the deep page is asked with the cursor of the row at depth' },
    target: 'GET /transactions at depth 100,000 rows within 1.2x of the first page (p50)',
    firstPageMs: first,
    pageAtDepthMs: atDepth,
    depthOverFirstP50: round(atDepth.p50 / first.p50, 2),
  };
}
