import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may be delivered to (docs/decisions/092). The sender resolves the
 * registered host itself and refuses any address in these ranges, at registration and again when
 * it connects (to the address it checked: a DNS answer that changes between the two is not
 * trusted). An IPv6 address that carries an IPv4 one is judged by the IPv4 address it reaches:
 * mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::` and Teredo `2001:0:…` (the client's address, its
 * last 32 bits inverted), so `::ffff:127.0.0.1` and `2002:7f00:1::` are loopback. `simulated` allows
 * loopback only, so local receivers work. Addresses are parsed by ipaddr.js.
 */
export type RefusedRange = 'unspecified' | 'loopback' | 'private' | 'shared' | 'link_local' | 'metadata' | 'unique_local' | 'multicast' | 'reserved' | 'not_an_address';

type Ranges<T extends ipaddr.IPv4 | ipaddr.IPv6> = [RefusedRange, [T, number][]][];

const v4 = (range: RefusedRange, ...blocks: string[]): Ranges<ipaddr.IPv4>[number] => [range, blocks.map((block) => ipaddr.IPv4.parseCIDR(block))];
const v6 = (range: RefusedRange, ...blocks: string[]): Ranges<ipaddr.IPv6>[number] => [range, blocks.map((block) => ipaddr.IPv6.parseCIDR(block))];

/**
 * Most specific first: the metadata address is named before the link-local block holding it. The
 * tables are built on each call (a few dozen parses, at registration and at each delivery's
 * connect): a table built once at import is out of the mutation runner's reach (decision 154).
 */
const ipv4Ranges = (): Ranges<ipaddr.IPv4> => [
  v4('metadata', '169.254.169.254/32'),
  v4('unspecified', '0.0.0.0/8'),
  v4('private', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'),
  v4('shared', '100.64.0.0/10'),
  v4('loopback', '127.0.0.0/8'),
  v4('link_local', '169.254.0.0/16'),
  // IETF protocol assignments, documentation, the old 6to4 relay anycast, benchmarking, class E.
  v4('reserved', '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4'),
  v4('multicast', '224.0.0.0/4'),
];

const ipv6Ranges = (): Ranges<ipaddr.IPv6> => [
  v6('metadata', 'fd00:ec2::254/128'),
  v6('unspecified', '::/128'),
  v6('loopback', '::1/128'),
  v6('link_local', 'fe80::/10'),
  // Site-local, discard, benchmarking, ORCHID, documentation (old and new), segment routing: none is a public receiver.
  v6('reserved', 'fec0::/10', '100::/64', '2001:2::/48', '2001:10::/28', '2001:20::/28', '2001:db8::/32', '3fff::/20', '5f00::/16'),
  v6('unique_local', 'fc00::/7'),
  v6('multicast', 'ff00::/8'),
];

const cidr6 = (block: string) => ipaddr.IPv6.parseCIDR(block);
const mapped = cidr6('::ffff:0:0/96');
const translated = cidr6('::ffff:0:0:0/96');
const compatible = cidr6('::/96');
const nat64 = cidr6('64:ff9b::/96');
const nat64LocalUse = cidr6('64:ff9b:1::/48');
const sixToFour = cidr6('2002::/16');
const teredo = cidr6('2001::/32');

function ipv4Range(address: ipaddr.IPv4): RefusedRange | undefined {
  return ipv4Ranges().find(([, blocks]) => blocks.some((block) => address.match(block)))?.[0];
}

const fromBytes = (bytes: number[]) => new ipaddr.IPv4(bytes);

/**
 * The IPv4 address an IPv6 address reaches, if it carries one: `undefined` for a plain IPv6 address.
 * For the local-use NAT64 prefix (RFC 8215) the operator chooses where the IPv4 address sits, so the
 * last 32 bits are read and the prefix itself is refused whatever they say (not globally reachable).
 */
function carriedIpv4(address: ipaddr.IPv6): { ipv4: ipaddr.IPv4; orElse?: RefusedRange } | undefined {
  const bytes = address.toByteArray();
  const last32 = bytes.slice(12, 16);
  if (address.match(mapped) || address.match(translated) || address.match(nat64)) return { ipv4: fromBytes(last32) };
  if (address.match(nat64LocalUse)) return { ipv4: fromBytes(last32), orElse: 'reserved' };
  // `::` and `::1` are IPv6's own; `::a.b.c.d` with a non-zero first three bytes is IPv4-compatible.
  if (address.match(compatible) && bytes.slice(12, 15).some((byte) => byte !== 0)) return { ipv4: fromBytes(last32) };
  if (address.match(sixToFour)) return { ipv4: fromBytes(bytes.slice(2, 6)) };
  if (address.match(teredo)) return { ipv4: fromBytes(last32.map((byte) => byte ^ 0xff)) };
  return undefined;
}

/** The range an address falls in, or undefined for a public unicast address. */
export function refusedRange(address: string): RefusedRange | undefined {
  const [text = ''] = address.split('%');
  const family = isIP(text);
  if (family === 4) return ipv4Range(ipaddr.IPv4.parse(text));
  if (family === 6) {
    const parsed = ipaddr.IPv6.parse(text);
    const carried = carriedIpv4(parsed);
    if (carried) return ipv4Range(carried.ipv4) ?? carried.orElse;
    return ipv6Ranges().find(([, blocks]) => blocks.some((block) => parsed.match(block)))?.[0];
  }
  return 'not_an_address';
}

/** Why an address may not receive webhooks here, or undefined when it may. `simulated` lets loopback through. */
export function addressRefusal(address: string, environment: string): RefusedRange | undefined {
  const range = refusedRange(address);
  if (range === 'loopback' && environment === 'simulated') return undefined;
  return range;
}

/** The class of a refused address in words, never the address: "a private address". */
export function describeRange(range: RefusedRange): string {
  const words: Record<RefusedRange, string> = {
    unspecified: 'an unspecified address',
    loopback: 'a loopback address',
    private: 'a private address',
    shared: 'a shared (carrier-grade NAT) address',
    link_local: 'a link-local address',
    metadata: 'a cloud metadata address',
    unique_local: 'a unique-local address',
    multicast: 'a multicast address',
    reserved: 'a reserved address',
    not_an_address: 'something that is not an address',
  };
  return words[range];
}
