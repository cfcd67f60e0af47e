import { isIP } from 'node:net';

/**
 * Which addresses a webhook may be delivered to (docs/decisions/092). The sender resolves the
 * registered host itself and refuses any address in these ranges, at registration and again when
 * it connects (to the address it checked: a DNS answer that changes between the two is not
 * trusted). IPv4-mapped, IPv4-compatible and NAT64 forms are judged by the IPv4 address they
 * carry, so `::ffff:127.0.0.1` is loopback. `simulated` allows loopback only, so local receivers work.
 */
export type RefusedRange = 'unspecified' | 'loopback' | 'private' | 'shared' | 'link_local' | 'metadata' | 'unique_local' | 'multicast' | 'reserved' | 'not_an_address';

interface Range {
  bits: number[];
  prefix: number;
  range: RefusedRange;
}

const v4 = (text: string, prefix: number, range: RefusedRange): Range => ({ bits: text.split('.').map(Number), prefix, range });

/** Most specific first: the metadata address is named before the link-local block holding it. */
const ipv4Ranges: Range[] = [
  v4('169.254.169.254', 32, 'metadata'),
  v4('0.0.0.0', 8, 'unspecified'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'shared'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link_local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'reserved'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'reserved'),
  v4('198.51.100.0', 24, 'reserved'),
  v4('203.0.113.0', 24, 'reserved'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

const v6 = (groups: number[], prefix: number, range: RefusedRange): Range => ({ bits: groups.flatMap((group) => [group >> 8, group & 0xff]), prefix, range });

const ipv6Ranges: Range[] = [
  v6([0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254], 128, 'metadata'),
  v6([0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'),
  v6([0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'),
  v6([0xfe80], 10, 'link_local'),
  v6([0xfec0], 10, 'reserved'),
  v6([0xfc00], 7, 'unique_local'),
  v6([0xff00], 8, 'multicast'),
  v6([0x0100, 0, 0, 0], 64, 'reserved'),
  v6([0x2001, 0x0db8], 32, 'reserved'),
];

function within(address: number[], range: Range): boolean {
  for (let bit = 0; bit < range.prefix; bit += 1) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((address[byte] ?? 0) & mask) !== ((range.bits[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address in any textual form (`::`, embedded dotted quad, zone id ignored). */
export function ipv6Bytes(text: string): number[] {
  const [withoutZone = ''] = text.split('%');
  let head = withoutZone;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted) {
    const quad = dotted[1]!.split('.').map(Number);
    tail = [(quad[0]! << 8) | quad[1]!, (quad[2]! << 8) | quad[3]!];
    head = head.slice(0, -dotted[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  let words: number[];
  if (head.includes('::')) {
    const [left = '', right = ''] = head.split('::');
    const leftWords = groups(left);
    const rightWords = [...groups(right), ...tail];
    words = [...leftWords, ...new Array<number>(8 - leftWords.length - rightWords.length).fill(0), ...rightWords];
  } else {
    words = [...groups(head), ...tail];
  }
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), if any. */
function embeddedIpv4(bytes: number[]): number[] | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const compatible = zeros(0, 12) && !zeros(12, 15);
  const nat64 = bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12);
  return mapped || compatible || nat64 ? bytes.slice(12) : undefined;
}

/** The range an address falls in, or undefined for a public unicast address. */
export function refusedRange(address: string): RefusedRange | undefined {
  const family = isIP(address.split('%')[0] ?? '');
  if (family === 4) {
    const bytes = address.split('.').map(Number);
    return ipv4Ranges.find((range) => within(bytes, range))?.range;
  }
  if (family === 6) {
    const bytes = ipv6Bytes(address);
    const carried = embeddedIpv4(bytes);
    if (carried) return ipv4Ranges.find((range) => within(carried, range))?.range;
    return ipv6Ranges.find((range) => within(bytes, range))?.range;
  }
  return 'not_an_address';
}

/** Why an address may not receive webhooks here, or undefined when it may. `simulated` lets loopback through. */
export function addressRefusal(address: string, environment: string): RefusedRange | undefined {
  const range = refusedRange(address);
  if (range === 'loopback' && environment === 'simulated') return undefined;
  return range;
}
