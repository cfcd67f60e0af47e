import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressRefusal, describeRange, type RefusedRange } from '#domain/webhookAddress.ts';
import { attemptTimeoutMs } from '#domain/webhookRetries.ts';

/**
 * The port to the integrator's webhook receiver: resolve its host, refuse what must not be reached
 * (docs/decisions/092), POST to the very address that was checked, follow no redirect, give up
 * after 10 s. The resolver is a port too, so tests can answer a name with any address without DNS.
 *
 * What it reports is read by the integrator (registration refusals, attempt records of GET
 * /events/{id}), who may not be the owner of the name: it says the class of what happened (a private
 * address, connection refused, timed out), never the address a name resolved to nor a connection
 * error's own message, which quotes address and port (docs/decisions/092).
 */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type HostResolver = (host: string) => Promise<ResolvedAddress[]>;

const systemResolver: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

let resolver: HostResolver = systemResolver;

/** Tests install a resolver that answers names without DNS; undefined puts the system's back. */
export function useHostResolver(next: HostResolver | undefined): void {
  resolver = next ?? systemResolver;
}

export class AddressRefused extends Error {
  constructor(
    readonly host: string,
    readonly range: RefusedRange,
  ) {
    super(`${host} resolves to ${describeRange(range)}: webhooks are delivered to public addresses only`);
    this.name = 'AddressRefused';
  }
}

export class HostUnresolved extends Error {
  constructor(readonly host: string) {
    super(`${host} does not resolve`);
    this.name = 'HostUnresolved';
  }
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * The address to connect to: the first of the host's addresses, every one of which must be allowed
 * (a name with one private address among public ones is refused whole, since a resolver may answer
 * either).
 */
export async function checkedAddress(url: URL, environment: string): Promise<ResolvedAddress> {
  const host = hostOf(url);
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver(host);
  } catch {
    throw new HostUnresolved(host);
  }
  if (addresses.length === 0) throw new HostUnresolved(host);
  for (const { address } of addresses) {
    const range = addressRefusal(address, environment);
    if (range) throw new AddressRefused(host, range);
  }
  return addresses[0]!;
}

const certificateCodes = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;

/** A failed connection or exchange in words of its class, from the error's code; never its message. */
export function failureClass(error: unknown): string {
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? '');
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection closed before an answer';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timed out';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL' || code === 'EHOSTDOWN') return 'address unreachable';
  if (certificateCodes.test(code)) return 'TLS certificate not accepted';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code === 'EPROTO') return 'TLS handshake failed';
  if (code.startsWith('HPE_')) return 'malformed HTTP response';
  return 'connection failed';
}

export interface SendResult {
  /** The receiver's status; undefined when no answer came. */
  status?: number;
  retryAfter?: string;
  error?: string;
  latencyMs: number;
}

/** POSTs the body to the URL at the checked address. Never throws: every failure is a result. */
export async function sendWebhook(url: string, headers: Record<string, string>, body: string, environment: string): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  let pinned: ResolvedAddress;
  try {
    pinned = await checkedAddress(target, environment);
  } catch (error) {
    return { error: error instanceof AddressRefused || error instanceof HostUnresolved ? error.message : 'address check failed', latencyMs: elapsed() };
  }
  // Every connection goes to the address checked above, whatever DNS answers by then.
  const pinnedLookup: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const outgoing = send(
      target,
      {
        method: 'POST',
        lookup: pinnedLookup,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'payments-webhooks/1' },
      },
      (response: IncomingMessage) => {
        // The body is not read for meaning; it is drained so the socket closes, and its time counts.
        response.on('data', () => undefined);
        response.on('end', () => {
          const retryAfter = response.headers['retry-after'];
          finish({ status: response.statusCode, ...(retryAfter ? { retryAfter } : {}) });
        });
        response.on('error', (error) => finish({ status: response.statusCode, error: failureClass(error) }));
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `timed out (no answer within ${attemptTimeoutMs / 1000} s)` });
      outgoing.destroy();
    }, attemptTimeoutMs);
    outgoing.on('error', (error) => finish({ error: failureClass(error) }));
    outgoing.end(body);
  });
}
