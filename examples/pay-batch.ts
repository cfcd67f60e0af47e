/**
 * Pay a batch and read its counts:
 *   BASE_URL=http://127.0.0.1:3000 API_KEY=sk_sim_… npx tsx examples/pay-batch.ts
 */
import { unwrap } from '@payments/client';
import { poll, run } from './connect.ts';

run(async (client) => {
  const corridor = { to: 'MXN', destinationCountry: 'MX' };
  // A batch runs on one rail: a quote for the corridor names it (`provider`).
  const { provider } = unwrap(await client.POST('/quotes', { body: { corridor, sendAmount: { amount: '10.00', currency: 'USDC' } } }));
  const payees = [
    { itemRef: 'salary-ana', name: 'Ana Torres', amount: '120.00' },
    { itemRef: 'salary-luis', name: 'Luis Gómez', amount: '95.50' },
    { itemRef: 'salary-rosa', name: 'Rosa Díaz', amount: '80.25' },
  ];
  // The batch id is the batch's idempotency key: `initiate` makes one, resubmitting with it is safe.
  const sent = await client.initiate('/batches', {
    body: {
      corridor,
      provider,
      items: payees.map((payee) => ({
        itemRef: payee.itemRef,
        sendAmount: { amount: payee.amount, currency: 'USDC' },
        recipientReference: 'Payroll November',
        beneficiary: { name: payee.name, account: '002010077777777771' },
      })),
    },
  });
  const accepted = unwrap(sent);
  console.log(`batch ${accepted.batchId}: ${accepted.state}, ${accepted.itemCount} items on ${provider}`);

  const batchId = sent.idempotencyKey;
  const batch = await poll(
    async () => unwrap(await client.GET('/batches/{batchId}', { params: { path: { batchId }, query: { limit: 100 } } })),
    (detail) => detail.state === 'COMPLETED' || detail.state === 'REJECTED',
    `batch ${batchId} to complete`,
  );
  if (batch.state === 'REJECTED') throw new Error(`batch ${batchId} rejected: ${batch.rejectedReason}`);
  const counts = Object.entries(batch.items).map(([state, count]) => `${state} ${count}`).join(', ');
  console.log(`batch ${batchId} ${batch.state}: ${counts}; total ${batch.totalSendAmount.amount} (scale ${batch.totalSendAmount.scale ?? 6}) USDC`);
  for (const item of batch.page.items) console.log(`  ${item.itemRef}: ${item.state} (${item.transactionId})`);
  if (batch.items.RECONCILED !== payees.length) throw new Error(`expected ${payees.length} items RECONCILED, got ${counts}`);
});
