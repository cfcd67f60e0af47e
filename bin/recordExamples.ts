/**
 * `npm run examples:record`: walks the real local service (simulated environment, a throwaway
 * in-memory DynamoDB Local) through what a new integrator does, and writes the requests it sent
 * and the answers it got to schemas/examples/recorded.json. The OpenAPI document shows them as
 * its examples (functions/contract/openapi.ts), and test/e2e/reference.test.ts holds every one of
 * them against its schema in the served document, so an example can never drift from the
 * contract: re-record after changing a schema the test names.
 */
import { exitUnlessNodeRuntime } from '../lib/local/nodeRuntime.ts';

exitUnlessNodeRuntime();
process.env.LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
const { writeFileSync } = await import('node:fs');
const path = await import('node:path');
const { startLocalService } = await import('../lib/local/service.ts');
const { onboardOrganization } = await import('../lib/ops/onboarding.ts');
const { setRateLimits } = await import('#store/organizations.ts');
const { findCorridor, sampleBeneficiary } = await import('#domain/corridors.ts');
const { sampleOffRampBeneficiaries } = await import('#operations/offRamp/beneficiaries.ts');

interface Recorded {
  request?: unknown;
  responses: Record<string, unknown>;
}
const operations: Record<string, Recorded> = {};
const webhooks: Record<string, unknown> = {};

const service = await startLocalService({ port: 0, tableName: `examples-${Date.now()}`, waitSeconds: 0 });
try {
  const onboarded = await onboardOrganization({ name: 'Acme Payroll Ltd', kybStatus: 'approved', openingDeposit: 10_000n * 1_000_000n });
  await service.runner.waitFor(onboarded.walletExecution);
  const apiKey = onboarded.apiKey.apiKey;
  await setRateLimits(onboarded.organization.id, { burst: 10_000, perSecond: 1_000 });

  /** One request as an integrator sends it; the answer is recorded under the operation and its status. */
  async function record(operationId: string, method: string, url: string, body?: unknown, options: { keyless?: boolean; recordRequest?: boolean } = {}) {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: { ...(options.keyless ? {} : { authorization: `Bearer ${apiKey}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as any;
    const entry = (operations[operationId] ??= { responses: {} });
    if (body !== undefined && options.recordRequest !== false) entry.request ??= body;
    entry.responses[String(response.status)] ??= answer;
    return { status: response.status, body: answer };
  }

  /** Reads until `ended` holds, as an integrator polls; the last answer is the one recorded. */
  async function settled(operationId: string, url: string, ended: (body: any) => boolean = (body) => !body.running) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await fetch(`${service.url}${url}`, { headers: { authorization: `Bearer ${apiKey}` } });
      const body = (await response.json()) as any;
      if (response.status === 200 && ended(body)) {
        (operations[operationId] ??= { responses: {} }).responses['200'] = body;
        return body;
      }
      if (Date.now() > deadline) throw new Error(`${url} did not settle: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function payloadOf(eventType: string, webhook: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const list = await record('listEvents', 'GET', `/events?type=${eventType}&limit=5`);
      const eventId = list.body.events?.[0]?.eventId ?? list.body.events?.[0]?.id;
      if (eventId) {
        const detail = await record('getEvent', 'GET', `/events/${eventId}`);
        webhooks[webhook] = detail.body.payload;
        return;
      }
      if (Date.now() > deadline) throw new Error(`no ${eventType} event`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  // Discovery
  await record('getHealth', 'GET', '/health', undefined, { keyless: true });
  await record('getCapabilities', 'GET', '/capabilities', undefined, { keyless: true });
  await record('getMe', 'GET', '/me');
  await record('getBalance', 'GET', '/balance');
  await record('listWallets', 'GET', '/wallets');
  await record('getWallet', 'GET', `/wallets/${onboarded.organization.homeWalletId}`);

  // Webhooks: the endpoint first, so the payments below are delivered (to nobody: the events are kept either way)
  await record('putWebhookEndpoint', 'PUT', '/webhooks/endpoint', { url: 'http://localhost:4000/hooks', events: ['transaction.reconciled', 'transaction.refunded', 'onramp.delivered', 'offramp.paid'] });
  await record('getWebhookEndpoint', 'GET', '/webhooks/endpoint');

  // A payment, priced then sent, followed to its end
  const corridor = { to: 'MXN', destinationCountry: 'MX' };
  const beneficiary = sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!);
  const quote = await record('createQuote', 'POST', '/quotes', { corridor, sendAmount: { amount: '250.00', currency: 'USDC' }, idempotencyKey: 'invoice-2026-0042' });
  await record('createTransaction', 'POST', '/transactions', {
    idempotencyKey: 'invoice-2026-0042',
    quoteId: quote.body.quoteId,
    corridor,
    sendAmount: { amount: '250.00', currency: 'USDC' },
    recipientReference: 'Invoice 2026-0042',
    beneficiary,
  });
  await settled('getTransaction', '/transactions/invoice-2026-0042');
  await record('listTransactions', 'GET', '/transactions?limit=2');
  await payloadOf('transaction.reconciled', 'transactionEvent');
  // The contract's refusals, as they are answered
  await record('createTransaction', 'POST', '/transactions', {
    idempotencyKey: 'invoice-2026-0043', corridor: { to: 'NGN', destinationCountry: 'NG' }, sendAmount: { amount: '80.00', currency: 'USDC' },
    recipientReference: 'Invoice 2026-0043', beneficiary: { name: 'Chidi Okafor', account: '0123456789' },
  }, { recordRequest: false });
  await record('getTransaction', 'GET', '/transactions/no-such-payment');

  // A batch of two on the corridor's first rail
  const provider = findCorridor('USDC', 'MXN', 'MX')!.routes[0]!.provider;
  await record('createBatch', 'POST', '/batches', {
    batchId: 'payroll-2026-11',
    corridor,
    provider,
    items: [
      { itemRef: 'emp-001', sendAmount: { amount: '120.00', currency: 'USDC' }, recipientReference: 'November payroll 001', beneficiary },
      { itemRef: 'emp-002', sendAmount: { amount: '95.50', currency: 'USDC' }, recipientReference: 'November payroll 002', beneficiary },
    ],
  });
  await settled('getBatch', '/batches/payroll-2026-11', (body) => body.state === 'COMPLETED');
  await record('listBatches', 'GET', '/batches?limit=2');

  // Money in: a simulated wire, and a wire deposit opened
  await record('getDepositInstructions', 'GET', '/treasury/deposit-instructions');
  await record('simulateWire', 'POST', '/treasury/onramps/simulate-wire', { amount: { amount: '500.00', currency: 'USD' } });
  await record('getOnRampQuote', 'GET', '/treasury/onramp/quote?amount=500.00&currency=USD');
  const onRamp = await record('createOnRamp', 'POST', '/treasury/onramp', { idempotencyKey: 'topup-2026-11-25', amount: { amount: '500.00', currency: 'USD' } });
  await record('getOnRamp', 'GET', `/treasury/onramp/${onRamp.body.onRampId ?? 'topup-2026-11-25'}`);
  await record('listOnRamps', 'GET', '/treasury/onramps?limit=2');
  await payloadOf('onramp.delivered', 'onRampEvent');
  await record('getCryptoDeposit', 'GET', '/treasury/crypto-deposit');

  // Money out: a withdrawal and an off-ramp
  await record('getWithdrawalQuote', 'GET', '/treasury/withdrawals/quote?amount=100.00&chain=base');
  await record('createWithdrawal', 'POST', '/treasury/withdrawals', { idempotencyKey: 'sweep-2026-11-25', amount: { amount: '100.00', currency: 'USDC' }, chain: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' });
  await settled('getWithdrawal', '/treasury/withdrawals/sweep-2026-11-25');
  await record('listWithdrawals', 'GET', '/treasury/withdrawals?limit=2');
  const registered = await record('createBeneficiary', 'POST', '/treasury/beneficiaries', sampleOffRampBeneficiaries[0]);
  await record('listBeneficiaries', 'GET', '/treasury/beneficiaries');
  const offRampQuote = await record('getOffRampQuote', 'GET', `/treasury/offramp/quote?amount=100.00&beneficiaryId=${registered.body.id}`);
  await record('createOffRamp', 'POST', '/treasury/offramp', { idempotencyKey: 'supplier-2026-11-25', amount: { amount: '100.00', currency: 'USDC' }, beneficiaryId: registered.body.id, quoteId: offRampQuote.body.quoteId });
  await settled('getOffRamp', '/treasury/offramp/supplier-2026-11-25', (body) => body.state !== undefined && !body.running);
  await record('listOffRamps', 'GET', '/treasury/offramps?limit=2');
  await payloadOf('offramp.paid', 'offRampEvent');

  // Recipients, team, notifications, statements, sandbox
  await record('createRecipient', 'POST', '/recipients', { name: 'Treasury cold wallet', type: 'wallet', address: `0x${'c0ffee'.repeat(6)}c0ff`, networkId: 'base' });
  await record('listRecipients', 'GET', '/recipients');
  await record('inviteMember', 'POST', '/members/invitations', { email: 'ana.garcia@example.com', name: 'Ana García', role: 'viewer' });
  await record('listMembers', 'GET', '/members');
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  await record('getStatement', 'GET', `/statements?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  await record('getSandboxPrefill', 'GET', '/treasury/sandbox-prefill');
} finally {
  await service.stop();
}

const file = path.join(import.meta.dirname, '..', 'schemas', 'examples', 'recorded.json');
writeFileSync(file, `${JSON.stringify({ operations, webhooks }, null, 2)}\n`);
console.log(`${Object.keys(operations).length} operations and ${Object.keys(webhooks).length} webhooks recorded in ${path.relative(process.cwd(), file)}`);
