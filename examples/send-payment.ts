/**
 * Send a payment and follow it to RECONCILED:
 *   BASE_URL=http://127.0.0.1:3000 API_KEY=sk_sim_… npx tsx examples/send-payment.ts
 */
import { newIdempotencyKey, unwrap } from '@payments/client';
import { poll, run } from './connect.ts';

run(async (client) => {
  const corridor = { to: 'MXN', destinationCountry: 'MX' };
  const sendAmount = { amount: '250.00', currency: 'USDC' };
  // The key is the payment's id: keep it with the invoice before sending, so a retry after a crash
  // sends the same key and can never pay twice. (Leave it out and `initiate` makes one and answers it.)
  const idempotencyKey = newIdempotencyKey();

  // 1. Price it and lock the rate for about a minute, bound to the key it will be paid with.
  const quote = unwrap(await client.POST('/quotes', { body: { corridor, sendAmount, idempotencyKey } }));
  console.log(`quote ${quote.quoteId}: ${sendAmount.amount} USDC pays ${quote.receiveAmount.amount} (scale ${quote.receiveAmount.scale}) ${quote.receiveAmount.currency}`);

  // 2. Pay with it: 202 at once, the money held from the balance.
  const sent = await client.initiate('/transactions', {
    body: {
      idempotencyKey,
      quoteId: quote.quoteId,
      corridor,
      sendAmount,
      recipientReference: 'Invoice 2026-0042',
      beneficiary: { name: 'María López', account: '002010077777777771' },
    },
  });
  const accepted = unwrap(sent);
  console.log(`payment ${accepted.transactionId}: ${accepted.status}`);

  // 3. Follow it while it is running.
  const transactionId = sent.idempotencyKey;
  const ended = await poll(
    async () => unwrap(await client.GET('/transactions/{transactionId}', { params: { path: { transactionId } } })),
    (status) => !status.running,
    `payment ${transactionId} to end`,
  );
  console.log(`states: ${(ended.timeline ?? []).map((entry) => entry.state).join(' → ')}`);
  if (ended.state !== 'RECONCILED') throw new Error(`payment ${transactionId} ended ${ended.state}${ended.failure ? ` (${ended.failure})` : ''}`);
  console.log(`payment ${transactionId} RECONCILED`);
});
