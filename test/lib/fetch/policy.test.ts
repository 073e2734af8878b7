import { describe, expect, it } from 'vitest';
import { addressKind, hostLiteral, isForbiddenAddress, parseFetchAllow, refusal } from '../../../lib/fetch/policy.js';

const none = parseFetchAllow(undefined);

describe('address policy: forbidden ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
  ])('refuses the IPv4 address %s as %s', (ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
  ])('refuses the IPv6 address %s as %s', (ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:a00:1::1', 'private'],
  ])('judges the IPv6 address %s carrying an IPv4 address as that address (%s)', (ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
  });

  it('refuses a string that is not an address as malformed', () => {
    expect(addressKind('localhost')).toBe('malformed');
    expect(addressKind('fe80::1%eth0')).toBe('malformed');
    expect(isForbiddenAddress('1.2.3')).toBe(true);
  });
});

describe('address policy: public addresses', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '223.255.255.255',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
  ])('allows the public address %s', (ip) => {
    expect(addressKind(ip)).toBeNull();
    expect(isForbiddenAddress(ip)).toBe(false);
    expect(refusal(none, 'example.com', ip)).toBeNull();
  });
});

describe('address policy: IP literals in odd forms', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['012.0x0.0.01', '10.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:127.0.0.1'],
  ])('reads the host %s as the address %s, which is refused', (host, ip) => {
    const literal = hostLiteral(host);
    expect(literal).toBe(ip);
    expect(isForbiddenAddress(literal!)).toBe(true);
  });

  it.each(['08.0.0.1', '1.2.3.4.5', '256.0.0.1', '1.2.65536', '0x100000000', 'foo.123', '[::1%lo]'])('refuses the host %s as a malformed address', (host) => {
    expect(hostLiteral(host)).toBe('malformed');
  });

  it('leaves host names to DNS', () => {
    expect(hostLiteral('example.com')).toBeNull();
    expect(hostLiteral('a1.example')).toBeNull();
  });
});

describe('NEWSFLOW_FETCH_ALLOW', () => {
  it('allows every address of a listed host name, and no other host', () => {
    const p = parseFetchAllow('news.test, Intranet.Example.');
    expect(refusal(p, 'news.test', '127.0.0.1')).toBeNull();
    expect(refusal(p, 'intranet.example', '10.0.0.7')).toBeNull();
    expect(refusal(p, 'other.test', '127.0.0.1')).toBe('loopback');
  });

  it('allows the addresses of a listed IPv4 network whatever the host', () => {
    const p = parseFetchAllow('127.0.0.0/8');
    expect(refusal(p, 'anything.test', '127.3.2.1')).toBeNull();
    expect(refusal(p, 'anything.test', '::ffff:127.0.0.1')).toBeNull();
    expect(refusal(p, 'anything.test', '10.0.0.1')).toBe('private');
    expect(refusal(p, 'anything.test', '::1')).toBe('loopback');
  });

  it('allows a listed IPv6 network and single addresses', () => {
    const p = parseFetchAllow('fd00::/8, ::1, 192.168.1.10');
    expect(refusal(p, 'h', 'fd12::1')).toBeNull();
    expect(refusal(p, 'h', 'fc00::1')).toBe('private');
    expect(refusal(p, 'h', '::1')).toBeNull();
    expect(refusal(p, 'h', '192.168.1.10')).toBeNull();
    expect(refusal(p, 'h', '192.168.1.11')).toBe('private');
  });

  it('refuses everything non-public when empty', () => {
    expect(parseFetchAllow('').entries).toEqual([]);
    expect(refusal(none, 'localhost', '127.0.0.1')).toBe('loopback');
  });

  it.each(['10.0.0.0/33', '::1/129', 'not a host', '10.0.0.0/8/1', 'example.com/8'])('rejects the entry %s', (entry) => {
    expect(() => parseFetchAllow(entry)).toThrow(/NEWSFLOW_FETCH_ALLOW/);
  });
});
