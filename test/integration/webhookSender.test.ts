import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureClass, sendWebhook } from '#providers/webhookSender.ts';
import { startReceiver, type Receiver } from '../support/webhookReceiver.ts';

/** The sender against a real receiver on loopback (`simulated` allows it): what it reports back for the retry rules. */
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver.close();
});

describe('sendWebhook', () => {
  it('reports the status and Retry-After, which the retry rules read', async () => {
    receiver.respond = () => ({ status: 503, headers: { 'retry-after': '120' } });
    const result = await sendWebhook(`${receiver.url}/busy`, { 'webhook-id': 'msg_busy' }, '{"a":1}', 'simulated');
    expect(result).toMatchObject({ status: 503, retryAfter: '120' });
    expect(result.error).toBeUndefined();
    expect(receiver.of('msg_busy')[0]!.body).toBe('{"a":1}');
    expect(receiver.of('msg_busy')[0]!.headers['content-type']).toBe('application/json');
  });

  it('does not follow a redirect', async () => {
    receiver.respond = (delivery) => (delivery.path === '/moved' ? { status: 301, headers: { location: `${receiver.url}/target` } } : { status: 200 });
    const result = await sendWebhook(`${receiver.url}/moved`, { 'webhook-id': 'msg_moved' }, '{}', 'simulated');
    expect(result.status).toBe(301);
    expect(receiver.deliveries.some((delivery) => delivery.path === '/target')).toBe(false);
  });

  it('reports a refused connection as an error, never throws, by its class: never the address or port it tried', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const result = await sendWebhook(`${url}/gone`, {}, '{}', 'simulated');
    expect(result.status).toBeUndefined();
    expect(result.error).toBe('connection refused');
    expect(result.error).not.toContain(new URL(url).port);
  });

  it('a receiver that does not speak TLS where https was asked: the class, not the library\'s words', async () => {
    const result = await sendWebhook(`${receiver.url.replace('http:', 'https:')}/plain`, {}, '{}', 'simulated');
    expect(result.status).toBeUndefined();
    expect(result.error).toBe('TLS handshake failed');
  });

  it('a refused address: the host and the class of the address, not the address', async () => {
    const result = await sendWebhook(`${receiver.url}/x`, {}, '{}', 'sandbox');
    expect(result.error).toBe('127.0.0.1 resolves to a loopback address: webhooks are delivered to public addresses only');
    const mapped = await sendWebhook('https://[::ffff:a9fe:a9fe]/x', {}, '{}', 'sandbox');
    expect(mapped.error).toBe('::ffff:a9fe:a9fe resolves to a cloud metadata address: webhooks are delivered to public addresses only');
  });
});

describe('failureClass', () => {
  const failure = (code: string | undefined, message = 'connect ECONNREFUSED 10.0.0.7:8443') => Object.assign(new Error(message), code ? { code } : {});

  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ECONNRESET', 'connection closed before an answer'],
    ['EPIPE', 'connection closed before an answer'],
    ['ETIMEDOUT', 'timed out'],
    ['EHOSTUNREACH', 'address unreachable'],
    ['ENETUNREACH', 'address unreachable'],
    ['CERT_HAS_EXPIRED', 'TLS certificate not accepted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS certificate not accepted'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'TLS certificate not accepted'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS certificate not accepted'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'TLS handshake failed'],
    ['EPROTO', 'TLS handshake failed'],
    ['HPE_INVALID_CONSTANT', 'malformed HTTP response'],
    ['ESOMETHINGNEW', 'connection failed'],
    [undefined, 'connection failed'],
  ])('%s is "%s", whatever the message quotes', (code, words) => {
    expect(failureClass(failure(code))).toBe(words);
    expect(failureClass(failure(code))).not.toMatch(/10\.0\.0\.7|8443/);
  });
});
