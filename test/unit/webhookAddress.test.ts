import { describe, expect, it } from 'vitest';
import { addressRefusal, describeRange, refusedRange, type RefusedRange } from '#domain/webhookAddress.ts';

/**
 * The webhook sender's address classifier (docs/decisions/092): one case per refused range, in
 * IPv4, IPv6 and the IPv6 forms that carry an IPv4 address, and the public addresses it lets through.
 */
describe('refused ranges', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:0ec2:0000:0000:0000:0000:0000:0254', 'metadata'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['localhost', 'not_an_address'],
  ])('%s is %s', (address, range) => {
    expect(refusedRange(address)).toBe(range);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:169.254.1.1', 'link_local'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
    // IPv4-compatible written in hex (ipaddr.js reads `::127.0.0.1` as mapped): the last 32 bits are the IPv4 address.
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    // IPv4-translated (RFC 6145).
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    // NAT64, local-use prefix (RFC 8215): judged by the last 32 bits when they say more, refused always.
    ['64:ff9b:1::10.0.0.1', 'private'],
    ['64:ff9b:1::a9fe:a9fe', 'metadata'],
    ['64:ff9b:1:ab::7f00:1', 'loopback'],
    ['64:ff9b:1::8.8.8.8', 'reserved'],
    // 6to4 (RFC 3056): the IPv4 address is bits 16 to 47.
    ['2002:7f00:1::', 'loopback'],
    ['2002:0a00:0001::1', 'private'],
    ['2002:c0a8:0101:1::1', 'private'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['2002:6440:0001::', 'shared'],
    ['2002::', 'unspecified'],
    // Teredo (RFC 4380): the client's IPv4 address is the last 32 bits, inverted (here behind server 65.54.227.120).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata'],
    ['2001::3f57:fefe', 'private'],
  ])('the IPv4 address inside %s is judged: %s', (address, range) => {
    expect(refusedRange(address)).toBe(range);
  });

  it.each([
    '93.184.216.34', '8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8',
    // 6to4 of 93.184.216.34, and a Teredo client at 93.184.216.34 (a247:27dd inverted).
    '2002:5db8:d822::1', '2001:0:4136:e378:8000:63bf:a247:27dd',
  ])(
    '%s is public',
    (address) => {
      expect(refusedRange(address)).toBeUndefined();
    },
  );
});

describe('per environment', () => {
  it('simulated lets loopback through, in every form, and nothing else', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(addressRefusal(address, 'simulated')).toBeUndefined();
      expect(addressRefusal(address, 'sandbox')).toBe('loopback');
      expect(addressRefusal(address, 'production')).toBe('loopback');
    }
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00:ec2::254', 'fe80::1']) expect(addressRefusal(address, 'simulated')).toBeDefined();
  });
});

describe('textual forms', () => {
  it('judges every spelling of one address alike (ipaddr.js parses them)', () => {
    for (const spelling of ['fd00:ec2::254', 'FD00:0EC2:0:0:0:0:0:254', 'fd00:0ec2:0000:0000:0000:0000:0000:0254']) expect(refusedRange(spelling)).toBe('metadata');
    for (const spelling of ['::ffff:1.2.3.4', '::ffff:102:304', '0:0:0:0:0:ffff:0102:0304']) expect(refusedRange(spelling)).toBeUndefined();
    for (const spelling of ['::ffff:10.1.2.3', '::ffff:a01:203', '0:0:0:0:0:FFFF:0A01:0203']) expect(refusedRange(spelling)).toBe('private');
    for (const spelling of ['::', '0:0:0:0:0:0:0:0', '0::0']) expect(refusedRange(spelling)).toBe('unspecified');
    for (const spelling of ['2002:7f00:1::', '2002:7F00:0001:0:0:0:0:0', '2002:7f00:1:0::']) expect(refusedRange(spelling)).toBe('loopback');
  });
});

describe('in words', () => {
  it('names the class of every refused range, never an address', () => {
    const ranges: RefusedRange[] = ['unspecified', 'loopback', 'private', 'shared', 'link_local', 'metadata', 'unique_local', 'multicast', 'reserved', 'not_an_address'];
    for (const range of ranges) expect(describeRange(range)).toMatch(/^(a|an|something) [A-Za-z ()-]+$/);
    expect(describeRange('private')).toBe('a private address');
  });
});
