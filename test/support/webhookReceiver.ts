import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * An integrator's webhook receiver on 127.0.0.1 and a random port, as a test needs one: it keeps
 * every request it got and answers what `respond` says (a status, headers, or a promise to hold the
 * answer). `verify` checks a delivery the way a receiver would, with the `standardwebhooks` package.
 */
export interface ReceivedDelivery {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** The attempt this is of its webhook-id, counted by this receiver (1 for the first). */
  seen: number;
  receivedAt: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  deliveries: ReceivedDelivery[];
  respond: (delivery: ReceivedDelivery) => Answer | Promise<Answer>;
  /** Deliveries of one event id, in arrival order. */
  of(id: string): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const seenById = new Map<string, number>();
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    respond: () => ({ status: 200 }),
    of: (id) => receiver.deliveries.filter((delivery) => delivery.id === id),
    close: () => new Promise((done) => server.close(() => done())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? '');
      const seen = (seenById.get(id) ?? 0) + 1;
      seenById.set(id, seen);
      const delivery: ReceivedDelivery = {
        path: request.url ?? '/',
        id,
        timestamp: String(request.headers['webhook-timestamp'] ?? ''),
        signature: String(request.headers['webhook-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: request.headers,
        seen,
        receivedAt: Date.now(),
      };
      receiver.deliveries.push(delivery);
      void Promise.resolve(receiver.respond(delivery)).then((answer) => {
        response.writeHead(answer.status, answer.headers ?? {});
        response.end();
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/**
 * Verifies a delivery as the receiver does when it arrives; throws WebhookVerificationError when no
 * signature matches the secret, or when its timestamp was more than the library's five minutes from
 * the moment it was received. The check of the timestamp is the library's own, against the moment of
 * receipt rather than now: a test that reads its deliveries minutes later (a long chaos run) asks what
 * the receiver saw. The library reads the clock synchronously, so nothing else runs meanwhile.
 */
export function verify(delivery: ReceivedDelivery, secret: string): { type: string; timestamp: string; data: Record<string, any> } {
  const clock = Date.now;
  Date.now = () => delivery.receivedAt;
  try {
    return new Webhook(secret).verify(delivery.body, {
      'webhook-id': delivery.id,
      'webhook-timestamp': delivery.timestamp,
      'webhook-signature': delivery.signature,
    }) as { type: string; timestamp: string; data: Record<string, any> };
  } finally {
    Date.now = clock;
  }
}
