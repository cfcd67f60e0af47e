import { describe, expect, it } from 'vitest';
import { addressRefusal, ipv6Bytes, refusedRange } from '#domain/webhookAddress.ts';

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
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
  ])('the IPv4 address inside %s is judged: %s', (address, range) => {
    expect(refusedRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
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

describe('ipv6Bytes', () => {
  it('expands every textual form to the same 16 bytes', () => {
    const expected = [0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54];
    expect(ipv6Bytes('fd00:ec2::254')).toEqual(expected);
    expect(ipv6Bytes('FD00:0EC2:0:0:0:0:0:254')).toEqual(expected);
    expect(ipv6Bytes('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect(ipv6Bytes('::')).toEqual(new Array(16).fill(0));
  });
});
