import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../lib/local/service.ts';

/**
 * DynamoDB Local holds balances and key hashes without authentication: it and the HTTP server
 * listen on 127.0.0.1 only, as `npm start` runs them (its own DynamoDB Local, no HOST).
 */
let service: LocalService;

beforeAll(async () => {
  service = await startLocalService({ port: 0, tableName: `listen-${randomBytes(6).toString('hex')}`, waitSeconds: 0 });
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

/** The local addresses of the sockets listening on `port`, from the kernel's own tables. */
function listeningOn(port: number): string[] {
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hex, portHex] = local.split(':');
      if (parseInt(portHex!, 16) !== port) continue;
      // Addresses are 32-bit words in host (little-endian) order; an IPv4-mapped IPv6 address ends in the IPv4 word.
      const ipv4 = (word: string) => word.match(/../g)!.reverse().map((byte) => parseInt(byte, 16)).join('.');
      if (hex!.length === 8) addresses.push(ipv4(hex!));
      else if (hex!.startsWith('0000000000000000FFFF0000')) addresses.push(`::ffff:${ipv4(hex!.slice(24))}`);
      else addresses.push(/^0+$/.test(hex!) ? '::' : `ipv6:${hex}`);
    }
  }
  return addresses;
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

const nonLoopback = Object.values(networkInterfaces())
  .flat()
  .filter((address) => address && address.family === 'IPv4' && !address.internal)
  .map((address) => address!.address);

describe('what the local service listens on', () => {
  const ports = () => ({ dynamodb: Number(new URL(service.dynamoEndpoint).port), http: Number(new URL(service.url).port) });

  it.runIf(existsSync('/proc/net/tcp'))('DynamoDB Local and the HTTP server listen on 127.0.0.1 only', () => {
    for (const [name, port] of Object.entries(ports())) {
      const addresses = listeningOn(port);
      expect(addresses.length, `${name} listens on ${port}`).toBeGreaterThan(0);
      for (const address of addresses) expect(['127.0.0.1', '::ffff:127.0.0.1'], `${name} on ${address}:${port}`).toContain(address);
    }
  });

  it('neither is reachable on a non-loopback address of this machine', async () => {
    // A machine with no such address cannot be reached from another one anyway.
    if (nonLoopback.length === 0) console.warn('no non-loopback IPv4 address on this machine: reachability not checked');
    for (const [name, port] of Object.entries(ports())) {
      expect(await reachable('127.0.0.1', port), `${name} on 127.0.0.1:${port}`).toBe(true);
      for (const host of nonLoopback) expect(await reachable(host, port), `${name} on ${host}:${port}`).toBe(false);
    }
  });
});
