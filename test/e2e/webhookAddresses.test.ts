import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call, startTestService } from '../support/service.ts';
import { until } from '../support/eventually.ts';
import { startReceiver, type Receiver } from '../support/webhookReceiver.ts';
import { eventSource } from '#contract/events.ts';
import { newOutboxEvent } from '#store/outbox.ts';
import { sendWebhook, useHostResolver, type ResolvedAddress } from '#providers/webhookSender.ts';

/**
 * The SSRF guard through HTTP on an environment that is not `simulated` (docs/decisions/092). No
 * DNS exists here and no traffic may leave the machine: names are answered by a resolver installed
 * at the sender's port, and nothing but loopback is ever connected to.
 */
let service: LocalService;
let apiKey: string;
let organizationId: string;
let receiver: Receiver;
const answers = new Map<string, ResolvedAddress[]>();

const v4 = (address: string): ResolvedAddress[] => [{ address, family: 4 }];
const v6 = (address: string): ResolvedAddress[] => [{ address, family: 6 }];

beforeAll(async () => {
  useHostResolver(async (host) => {
    const found = answers.get(host);
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  });
  service = await startTestService('sandbox');
  const created = await onboardOrganization({ name: 'Sandbox Hooks', kybStatus: 'approved' });
  apiKey = created.apiKey.apiKey;
  organizationId = created.organization.id;
  receiver = await startReceiver();
});

afterAll(async () => {
  useHostResolver(undefined);
  await receiver?.close();
  await service?.stop();
  process.env.SERVICE_ENVIRONMENT = 'simulated';
});

describe('registration outside simulated', () => {
  it.each([
    ['loopback', v4('127.0.0.1')],
    ['loopback (IPv6)', v6('::1')],
    ['private 10/8', v4('10.1.2.3')],
    ['private 172.16/12', v4('172.20.0.1')],
    ['private 192.168/16', v4('192.168.0.10')],
    ['shared 100.64/10', v4('100.64.1.1')],
    ['link-local', v4('169.254.10.10')],
    ['link-local (IPv6)', v6('fe80::1')],
    ['unique-local', v6('fd12::1')],
    ['multicast', v4('224.0.0.251')],
    ['multicast (IPv6)', v6('ff02::1')],
    ['metadata', v4('169.254.169.254')],
    ['metadata (IPv6)', v6('fd00:ec2::254')],
    ['IPv4-mapped loopback', v6('::ffff:127.0.0.1')],
    ['IPv4-mapped metadata', v6('::ffff:169.254.169.254')],
    ['IPv4-mapped private', v6('::ffff:10.0.0.1')],
    ['unspecified', v4('0.0.0.0')],
    ['one private address among public ones', [...v4('93.184.216.34'), ...v4('10.0.0.7')]],
    ['6to4 of loopback', v6('2002:7f00:1::1')],
    ['6to4 of the metadata address', v6('2002:a9fe:a9fe::')],
    ['Teredo with a private client', v6('2001:0:4136:e378:8000:63bf:f5ff:fffe')],
    ['NAT64 of a private address', v6('64:ff9b::10.0.0.1')],
    ['local-use NAT64', v6('64:ff9b:1::8.8.8.8')],
  ])('refuses a host resolving to %s with 400 validation naming its class, never the address, and stores nothing', async (_label, addresses) => {
    const host = `h${randomBytes(4).toString('hex')}.example.com`;
    answers.set(host, addresses);
    const { status, body } = await call(service, 'PUT', '/webhooks/endpoint', { apiKey, body: { url: `https://${host}/hooks` } });
    expect(status).toBe(400);
    expect(body.error).toBe('validation');
    expect(body.issues[0].path).toEqual(['url']);
    expect(body.issues[0].message).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')} resolves to an? [A-Za-z ()-]+ address: webhooks are delivered to public addresses only$`));
    for (const { address } of addresses) expect(JSON.stringify(body)).not.toContain(address);
    expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey })).status).toBe(404);
  });

  it('refuses an address literal in a private range, a name that does not resolve, and plain http', async () => {
    for (const url of ['https://10.0.0.1/hooks', 'https://[::ffff:169.254.169.254]/hooks', 'https://[fd00:ec2::254]/hooks', 'https://nowhere.invalid/hooks', 'http://93.184.216.34/hooks']) {
      const { status, body } = await call(service, 'PUT', '/webhooks/endpoint', { apiKey, body: { url } });
      expect(status, url).toBe(400);
      expect(body.error).toBe('validation');
    }
  });

  it('accepts https to a public address; a name re-pointed at a private one is refused at connect time, and nothing is sent', async () => {
    answers.set('hooks.example.com', v4('93.184.216.34'));
    const put = await call(service, 'PUT', '/webhooks/endpoint', { apiKey, body: { url: 'https://hooks.example.com/in' } });
    expect(put.status).toBe(200);

    // DNS rebinding: the name now answers loopback, where a receiver is listening.
    answers.set('hooks.example.com', v4('127.0.0.1'));
    const event = newOutboxEvent('transaction.paid_out', organizationId, { transactionId: 'rebind-0001', running: false, state: 'PAID_OUT' });
    await service.bus.publish([{ Source: eventSource, DetailType: event.type, Detail: JSON.stringify(event) }]);
    const detail = await until(
      async () => (await call(service, 'GET', `/events/${event.id}`, { apiKey })).body,
      (body) => body.deliveryStatus === 'failed',
      { what: 'the delivery to fail' },
    );
    expect(detail.attempts).toHaveLength(10);
    for (const attempt of detail.attempts) {
      expect(attempt.httpStatus).toBeNull();
      // The class, not the address the name now resolves to.
      expect(attempt.error).toBe('hooks.example.com resolves to a loopback address: webhooks are delivered to public addresses only');
    }
    expect(JSON.stringify(detail)).not.toContain('127.0.0.1');
    expect(receiver.deliveries).toEqual([]);
  });

  it('the sender connects to the address it checked, not to what the name resolves to later', async () => {
    answers.set('pinned.test', v4('127.0.0.1'));
    const port = new URL(receiver.url).port;
    // Refused here (sandbox), so no connection at all…
    const refused = await sendWebhook(`http://pinned.test:${port}/x`, {}, '{}', 'sandbox');
    expect(refused.status).toBeUndefined();
    expect(receiver.deliveries).toEqual([]);
    // …and allowed where loopback is: the name, unknown to any DNS, reaches the checked address.
    const sent = await sendWebhook(`http://pinned.test:${port}/x`, { 'webhook-id': 'msg_pinned' }, '{}', 'simulated');
    expect(sent.status).toBe(200);
    expect(receiver.of('msg_pinned')).toHaveLength(1);
  });
});
