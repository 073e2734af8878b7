/**
 * Address policy of the fetcher: which addresses a fetch may connect to.
 *
 * Refused: every address that is not a public unicast address of the internet — loopback,
 * private, link-local, CGNAT, cloud metadata, unspecified, multicast, broadcast, reserved and
 * documentation ranges, IPv6 unique-local and site-local. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged as the IPv4
 * address they carry.
 *
 * `NEWSFLOW_FETCH_ALLOW` (comma-separated) lifts the refusal: a host name entry (`localhost`,
 * `intranet.example`) allows every address that name resolves to, an address (`10.1.2.3`, `::1`)
 * or a CIDR network (`10.0.0.0/8`, `fd00::/8`) allows the addresses in it whatever the name.
 *
 * The fetcher judges the address a connection is made to (after DNS, on every hop of a
 * redirect), never only the name in the URL.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

/** A refused range: its network, prefix length and the name a refusal reports. */
interface Range {
  net: string;
  prefix: number;
  kind: string;
}

const V4_RANGES: Range[] = [
  { net: '169.254.169.254', prefix: 32, kind: 'metadata' },
  { net: '0.0.0.0', prefix: 8, kind: 'unspecified' },
  { net: '10.0.0.0', prefix: 8, kind: 'private' },
  { net: '100.64.0.0', prefix: 10, kind: 'cgnat' },
  { net: '127.0.0.0', prefix: 8, kind: 'loopback' },
  { net: '169.254.0.0', prefix: 16, kind: 'link-local' },
  { net: '172.16.0.0', prefix: 12, kind: 'private' },
  { net: '192.0.0.0', prefix: 24, kind: 'reserved' }, // IETF protocol assignments
  { net: '192.0.2.0', prefix: 24, kind: 'reserved' }, // TEST-NET-1
  { net: '192.88.99.0', prefix: 24, kind: 'reserved' }, // 6to4 relay anycast (deprecated)
  { net: '192.168.0.0', prefix: 16, kind: 'private' },
  { net: '198.18.0.0', prefix: 15, kind: 'reserved' }, // benchmarking
  { net: '198.51.100.0', prefix: 24, kind: 'reserved' }, // TEST-NET-2
  { net: '203.0.113.0', prefix: 24, kind: 'reserved' }, // TEST-NET-3
  { net: '224.0.0.0', prefix: 4, kind: 'multicast' },
  { net: '240.0.0.0', prefix: 4, kind: 'reserved' }, // includes the broadcast 255.255.255.255
];

const V6_RANGES: Range[] = [
  { net: 'fd00:ec2::254', prefix: 128, kind: 'metadata' }, // AWS IMDS over IPv6
  { net: '::', prefix: 128, kind: 'unspecified' },
  { net: '::1', prefix: 128, kind: 'loopback' },
  { net: '::', prefix: 96, kind: 'reserved' }, // IPv4-compatible (deprecated)
  { net: '64:ff9b:1::', prefix: 48, kind: 'reserved' }, // local-use NAT64
  { net: '100::', prefix: 64, kind: 'reserved' }, // discard-only
  { net: '2001:db8::', prefix: 32, kind: 'reserved' }, // documentation
  { net: 'fc00::', prefix: 7, kind: 'private' }, // unique local
  { net: 'fe80::', prefix: 10, kind: 'link-local' },
  { net: 'fec0::', prefix: 10, kind: 'private' }, // site-local (deprecated)
  { net: 'ff00::', prefix: 8, kind: 'multicast' },
];

/** One BlockList per kind, in the order above (the first kind that matches names the refusal). */
function compile(ranges: Range[], family: 'ipv4' | 'ipv6'): { kind: string; list: BlockList }[] {
  const byKind = new Map<string, BlockList>();
  for (const r of ranges) {
    let list = byKind.get(r.kind);
    if (!list) byKind.set(r.kind, (list = new BlockList()));
    list.addSubnet(r.net, r.prefix, family);
  }
  return [...byKind].map(([kind, list]) => ({ kind, list }));
}

const V4 = compile(V4_RANGES, 'ipv4');
const V6 = compile(V6_RANGES, 'ipv6');

/** The 16 bytes of an IPv6 address (as `isIP` accepts it, zone id not allowed), or null. */
export function ipv6Bytes(ip: string): Uint8Array | null {
  if (isIP(ip) !== 6 || ip.includes('%')) return null;
  let text = ip.toLowerCase();
  // a trailing dotted IPv4 becomes two hextets
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const b = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) return null;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}

const v4At = (b: Uint8Array, i: number) => `${b[i]}.${b[i + 1]}.${b[i + 2]}.${b[i + 3]}`;
const startsWith = (b: Uint8Array, prefix: number[]) => prefix.every((v, i) => b[i] === v);

/** The prefixes (bytes) of the IPv6 forms that carry an IPv4 address, and the byte the IPv4 address starts at (see `embeddedIPv4`). */
const V4_CARRIERS: { prefix: number[]; at: number }[] = [
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], at: 12 }, // IPv4-mapped ::ffff:0:0/96
  { prefix: [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], at: 12 }, // NAT64 64:ff9b::/96
  { prefix: [0x20, 0x02], at: 2 }, // 6to4 2002::/16
];

/** 16 bytes as an IPv6 address in its compressed text form (RFC 5952: the longest run of two or more zero groups as `::`). */
function ipv6Text(b: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => (b[i * 2]! << 8) | b[i * 2 + 1]!);
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j > i ? j : i + 1;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(':');
  return best.at < 0 ? hex(groups) : `${hex(groups.slice(0, best.at))}::${hex(groups.slice(best.at + best.len))}`;
}

/**
 * Every network `addressKind` refuses, as CIDR text: the IPv4 and IPv6 ranges above, then, for
 * each IPv4 range, the networks of the IPv6 forms that carry its addresses (IPv4-mapped, NAT64,
 * 6to4), which are judged as the IPv4 address they carry. An address is refused exactly when it
 * lies in one of them; the OpenAPI document a service serves lists them (a webhook URL's host).
 */
export function refusedNetworks(): string[] {
  const out = [...V4_RANGES, ...V6_RANGES].map((r) => `${r.net}/${r.prefix}`);
  for (const c of V4_CARRIERS) {
    for (const r of V4_RANGES) {
      const b = new Uint8Array(16);
      c.prefix.forEach((v, i) => (b[i] = v));
      r.net.split('.').forEach((v, i) => (b[c.at + i] = Number(v)));
      out.push(`${ipv6Text(b)}/${c.at * 8 + r.prefix}`);
    }
  }
  return out;
}

/**
 * The IPv4 address an IPv6 address carries, where its prefix says it carries one and a packet to
 * it reaches that IPv4 host: IPv4-mapped (::ffff:0:0/96), NAT64 well-known (64:ff9b::/96),
 * 6to4 (2002::/16).
 */
export function embeddedIPv4(ip: string): string | null {
  const b = ipv6Bytes(ip);
  if (!b) return null;
  const c = V4_CARRIERS.find((x) => startsWith(b, x.prefix));
  return c ? v4At(b, c.at) : null;
}

/**
 * What kind of non-public address `ip` is (`loopback`, `private`, `link-local`, `cgnat`,
 * `metadata`, `unspecified`, `multicast`, `reserved`), null for a public address; `malformed`
 * for a string that is not an IP address.
 */
export function addressKind(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(bare);
  if (family === 4) return V4.find((k) => k.list.check(bare, 'ipv4'))?.kind ?? null;
  if (family !== 6 || bare.includes('%')) return 'malformed';
  const v4 = embeddedIPv4(bare);
  if (v4) return addressKind(v4);
  return V6.find((k) => k.list.check(bare, 'ipv6'))?.kind ?? null;
}

/** Whether the fetcher refuses to connect to `ip` (before `NEWSFLOW_FETCH_ALLOW` is applied). */
export function isForbiddenAddress(ip: string): boolean {
  return addressKind(ip) !== null;
}

/**
 * The address a URL host names when it is an IP literal, in any form an IPv4 resolver accepts
 * (inet_aton: `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`), or an IPv6 literal with or without
 * brackets. `null`: the host is a name (DNS decides). `'malformed'`: it looks like a number form
 * (its last label is numeric, as the URL standard decides) but is no valid address — refused.
 */
export function hostLiteral(host: string): string | 'malformed' | null {
  const h = host.toLowerCase().replace(/\.$/, '');
  const inner = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  if (isIP(inner) === 6) return inner.includes('%') ? 'malformed' : inner;
  if (inner.includes(':') || inner.includes('[') || inner.includes(']')) return 'malformed';
  const labels = inner.split('.');
  const last = labels[labels.length - 1] ?? '';
  if (!/^(0x[0-9a-z]*|\d+)$/.test(last)) return null;
  if (labels.length > 4) return 'malformed';
  const nums: number[] = [];
  for (const l of labels) {
    let v: number;
    if (/^0x[0-9a-f]*$/.test(l)) v = l.length === 2 ? 0 : parseInt(l.slice(2), 16);
    else if (/^0[0-7]+$/.test(l)) v = parseInt(l, 8);
    else if (/^(0|[1-9]\d*)$/.test(l)) v = Number(l);
    else return 'malformed';
    if (!Number.isSafeInteger(v)) return 'malformed';
    nums.push(v);
  }
  const lastNum = nums.pop()!;
  if (nums.some((n) => n > 255) || lastNum >= 256 ** (4 - nums.length)) return 'malformed';
  let value = lastNum;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256).join('.');
}

/** The allow list of `NEWSFLOW_FETCH_ALLOW`: host names, and addresses and networks. */
export interface FetchPolicy {
  /** lower-case host names (no trailing dot) whose every address is allowed */
  hosts: ReadonlySet<string>;
  /** addresses and networks allowed whatever the host name */
  networks: BlockList;
  /** the entries as given, for messages */
  entries: readonly string[];
}

/**
 * Parse `NEWSFLOW_FETCH_ALLOW`: comma-separated entries, each a host name, an IP address
 * (IPv4 or IPv6, brackets optional) or a CIDR network (`127.0.0.0/8`, `::1/128`). An entry that
 * is none of these throws (a typo must not silently allow nothing, or everything).
 */
export function parseFetchAllow(text: string | undefined): FetchPolicy {
  const hosts = new Set<string>();
  const networks = new BlockList();
  const entries: string[] = [];
  for (const raw of (text ?? '').split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    entries.push(entry);
    const [addr, bits, extra] = entry.split('/');
    const ip = addr!.startsWith('[') && addr!.endsWith(']') ? addr!.slice(1, -1) : addr!;
    const family = isIP(ip);
    if (bits !== undefined) {
      const prefix = /^\d+$/.test(bits) ? Number(bits) : NaN;
      if (extra !== undefined || !family || !(prefix >= 0 && prefix <= (family === 4 ? 32 : 128))) {
        throw new Error(`NEWSFLOW_FETCH_ALLOW: "${entry}" is not a CIDR network (e.g. 10.0.0.0/8, fd00::/8)`);
      }
      networks.addSubnet(ip, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (family) {
      networks.addAddress(ip, family === 4 ? 'ipv4' : 'ipv6');
    } else if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i.test(entry)) {
      hosts.add(entry.toLowerCase().replace(/\.$/, ''));
    } else {
      throw new Error(`NEWSFLOW_FETCH_ALLOW: "${entry}" is neither a host name, an address nor a CIDR network`);
    }
  }
  return { hosts, networks, entries };
}

/**
 * Public addresses only: the policy of a fetcher given none. The configured one is resolved once,
 * from NEWSFLOW_FETCH_ALLOW, by the service's config (service/config.ts `fetchPolicy`) and the
 * project (pipelines/config/project.ts `fetchPolicy`), and passed down as a value.
 */
export const PUBLIC_ONLY: FetchPolicy = parseFetchAllow('');

/** Whether the policy's allow list covers an address (an IPv4-mapped IPv6 address as its IPv4). */
function allowedNetwork(policy: FetchPolicy, ip: string): boolean {
  if (isIPv4(ip)) return policy.networks.check(ip, 'ipv4');
  if (policy.networks.check(ip, 'ipv6')) return true;
  const b = ipv6Bytes(ip);
  return !!b && startsWith(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) && policy.networks.check(v4At(b, 12), 'ipv4');
}

/**
 * Judge a connection to `ip` made for the URL host `host`: null when allowed, else the kind of
 * address that is refused (see `addressKind`).
 */
export function refusal(policy: FetchPolicy, host: string, ip: string): string | null {
  const kind = addressKind(ip);
  if (kind === null) return null;
  if (kind === 'malformed') return kind;
  const name = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  if (policy.hosts.has(name) || allowedNetwork(policy, ip)) return null;
  return kind;
}

/** Host names that are loopback whatever DNS says (RFC 6761 section 6.3): `localhost` and its subdomains (`*.`). */
export const LOCALHOST_NAMES: readonly string[] = ['localhost', '*.localhost'];
const isLocalhostName = (name: string) => LOCALHOST_NAMES.some((n) => (n.startsWith('*.') ? name.endsWith(n.slice(1)) : name === n));

/**
 * Why the policy refuses a URL before any name is resolved: its host is an address literal (in
 * any form `hostLiteral` reads) or a `localhost` name, of a kind the policy refuses (`loopback`,
 * `private`, `metadata`, ... as `addressKind`; `malformed`); null when the host is a name DNS
 * decides on (judged on every connection) or an allowed address. For checks where a request is
 * made (an alert's webhook URL is refused when it can never be delivered).
 */
export function urlHostRefusal(policy: FetchPolicy, url: URL): string | null {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (isLocalhostName(host)) {
    if (policy.hosts.has(host)) return null;
    const v4 = refusal(policy, host, '127.0.0.1');
    const v6 = refusal(policy, host, '::1');
    return v4 && v6 ? v4 : null;
  }
  const literal = hostLiteral(host);
  if (literal === null) return null;
  if (literal === 'malformed') return literal;
  return refusal(policy, host, literal);
}
