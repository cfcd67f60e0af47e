/**
 * Receive and verify webhooks: a receiver on 127.0.0.1, registered as the endpoint, then a payment
 * whose signed `transaction.paid_out` and `transaction.reconciled` it verifies:
 *   BASE_URL=http://127.0.0.1:3000 API_KEY=sk_sim_… npx tsx examples/receive-webhooks.ts
 * It replaces the organization's endpoint and deletes it when done (the simulated environment
 * accepts http and loopback addresses; others take only https to public ones).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unwrap, verifyWebhook, type WebhookEvent } from '@payments/client';
import { poll, run } from './connect.ts';

run(async (client) => {
  let secret = '';
  const seen = new Set<string>();
  const verified: WebhookEvent[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        // The raw body, as received: the signature covers these bytes.
        const event = verifyWebhook(Buffer.concat(chunks), request.headers, secret);
        // At least once: the same webhook-id may come again; act on it once, acknowledge every copy.
        const id = String(request.headers['webhook-id']);
        if (!seen.has(id)) {
          seen.add(id);
          verified.push(event);
          console.log(`verified ${id}: ${event.type}`);
        }
        response.writeHead(204).end();
      } catch (error) {
        console.log(`refused a delivery: ${error instanceof Error ? error.message : String(error)}`);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  try {
    const events = ['transaction.paid_out', 'transaction.reconciled'] as const;
    // The secret is answered once: by the first registration, or by a rotation when one existed.
    let registered = unwrap(await client.PUT('/webhooks/endpoint', { body: { url, events: [...events] } }));
    if (!registered.secret) registered = unwrap(await client.PUT('/webhooks/endpoint', { body: { url, events: [...events], rotateSecret: true } }));
    secret = registered.secret!;
    console.log(`endpoint ${registered.url} registered for ${registered.events.join(', ')}`);

    const sent = await client.initiate('/transactions', {
      body: {
        corridor: { to: 'MXN', destinationCountry: 'MX' },
        sendAmount: { amount: '42.00', currency: 'USDC' },
        recipientReference: 'Invoice 2026-0043',
        beneficiary: { name: 'María López', account: '002010077777777771' },
      },
    });
    const transactionId = unwrap(sent).transactionId;
    console.log(`payment ${transactionId} sent`);

    const received = () => verified.flatMap((event) => (event.type === 'transaction.paid_out' || event.type === 'transaction.reconciled') && event.data.transactionId === transactionId ? [event.type] : []);
    await poll(async () => received(), (types) => events.every((type) => types.includes(type)), `${events.join(' and ')} of ${transactionId}`, 60_000, 200);
    console.log(`received and verified ${received().join(', ')} for ${transactionId}`);
  } finally {
    await client.DELETE('/webhooks/endpoint');
    await new Promise((resolve) => server.close(resolve));
  }
});
