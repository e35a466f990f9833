// The outbound address rule as a table: URL forms an attacker would try (and ones that must keep
// working), each with what the contract says, without WEBHOOK_ALLOW_PRIVATE (`strict`) and with it
// (`dev`). `{port}` is filled with a loopback tripwire's port by tests that send, so a loopback form
// the rule wrongly let through would be caught connecting. Names resolve through NAMES (a fake
// resolver); a name missing there does not resolve.

export type Verdict = 'allowed' | 'refused';

export interface AddressRow {
  url: string;
  what: string;
  strict: Verdict;
  dev: Verdict;
  /** Accepted at save although the send refuses it (a name that does not resolve yet). */
  saveOnly?: true;
}

/** What the fake resolver answers for the names of the table. */
export const NAMES: Record<string, string[]> = {
  'public.example': ['93.184.216.34'],
  'good.example': ['93.184.216.34'],
  'ten.example': ['10.0.0.1'],
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'v6.example': ['2606:4700:4700::1111'],
};

const r = (url: string, what: string, strict: Verdict, dev: Verdict, extra: Partial<AddressRow> = {}): AddressRow => ({ url, what, strict, dev, ...extra });

export const ADDRESS_TABLE: AddressRow[] = [
  // The forms the issue found accepted on main.
  r('https://localhost.:{port}/', 'localhost with a trailing dot', 'refused', 'allowed'),
  r('https://LocalHost.:{port}/', 'localhost in mixed case with a trailing dot', 'refused', 'allowed'),
  r('https://foo.localhost.:{port}/', 'a name under .localhost', 'refused', 'allowed'),
  r('https://[::ffff:0:7f00:1]:{port}/', 'IPv4-translated ::ffff:0:0:0/96 around 127.0.0.1', 'refused', 'allowed'),
  r('https://[2002:7f00:1::1]:{port}/', '6to4 2002::/16 around 127.0.0.1', 'refused', 'allowed'),
  r('https://[::7f00:1]:{port}/', 'IPv4-compatible ::/96 around 127.0.0.1', 'refused', 'allowed'),
  // Every IPv4 literal form the URL parser accepts.
  r('https://127.0.0.1:{port}/', 'loopback, dotted decimal', 'refused', 'allowed'),
  r('https://2130706433:{port}/', 'loopback as one decimal number', 'refused', 'allowed'),
  r('https://017700000001:{port}/', 'loopback as one octal number', 'refused', 'allowed'),
  r('https://0x7f000001:{port}/', 'loopback as one hex number', 'refused', 'allowed'),
  r('https://0x7f.1:{port}/', 'loopback, hex and shortened', 'refused', 'allowed'),
  r('https://127.1:{port}/', 'loopback, shortened', 'refused', 'allowed'),
  r('https://0177.0.0.1:{port}/', 'loopback, octal first part', 'refused', 'allowed'),
  r('https://127.0.0.1.:{port}/', 'loopback with a trailing dot', 'refused', 'allowed'),
  r('https://%31%32%37.0.0.1:{port}/', 'loopback, percent-encoded', 'refused', 'allowed'),
  r('https://127\u30020\u30020\u30021:{port}/', 'loopback with ideographic full stops', 'refused', 'allowed'),
  r('https://\uff10x7f.1:{port}/', 'loopback in full-width digits', 'refused', 'allowed'),
  // The IANA special-purpose IPv4 ranges.
  r('https://0:{port}/', 'unspecified, as the number 0', 'refused', 'refused'),
  r('https://0.0.0.0:{port}/', 'unspecified 0.0.0.0/8', 'refused', 'refused'),
  r('https://10.0.0.1/', 'private 10/8', 'refused', 'allowed'),
  r('https://172.16.0.1/', 'private 172.16/12', 'refused', 'allowed'),
  r('https://192.168.1.1/', 'private 192.168/16', 'refused', 'allowed'),
  r('https://169.254.169.254/', 'link-local (cloud metadata)', 'refused', 'refused'),
  r('https://100.64.0.1/', 'shared 100.64/10', 'refused', 'refused'),
  r('https://224.0.0.1/', 'multicast', 'refused', 'refused'),
  r('https://255.255.255.255/', 'limited broadcast', 'refused', 'refused'),
  r('https://240.0.0.1/', 'reserved 240/4', 'refused', 'refused'),
  r('https://192.0.2.1/', 'documentation TEST-NET-1', 'refused', 'refused'),
  r('https://198.51.100.7/', 'documentation TEST-NET-2', 'refused', 'refused'),
  r('https://203.0.113.9/', 'documentation TEST-NET-3', 'refused', 'refused'),
  r('https://198.18.0.1/', 'benchmarking 198.18/15', 'refused', 'refused'),
  r('https://192.0.0.8/', 'IETF protocol assignments 192.0.0/24', 'refused', 'refused'),
  // IPv6 ranges, zone ids, and IPv6 forms that carry an IPv4 address.
  r('https://[::1]:{port}/', 'IPv6 loopback', 'refused', 'allowed'),
  r('https://[::]:{port}/', 'IPv6 unspecified', 'refused', 'refused'),
  r('https://[fe80::1]/', 'IPv6 link-local', 'refused', 'refused'),
  r('https://[fe80::1%25eth0]/', 'IPv6 link-local with a zone id', 'refused', 'refused'),
  r('https://[::1%25lo]:{port}/', 'IPv6 loopback with a zone id', 'refused', 'refused'),
  r('https://[fd12:3456::1]/', 'IPv6 unique-local', 'refused', 'allowed'),
  r('https://[ff02::1]/', 'IPv6 multicast', 'refused', 'refused'),
  r('https://[2001:db8::1]/', 'IPv6 documentation', 'refused', 'refused'),
  r('https://[3fff::1]/', 'IPv6 documentation 3fff::/20', 'refused', 'refused'),
  r('https://[fec0::1]/', 'IPv6 site-local (deprecated)', 'refused', 'refused'),
  r('https://[100::1]/', 'IPv6 discard-only', 'refused', 'refused'),
  r('https://[4000::1]/', 'IPv6 outside 2000::/3 (unassigned)', 'refused', 'refused'),
  r('https://[::ffff:127.0.0.1]:{port}/', 'IPv4-mapped loopback', 'refused', 'allowed'),
  r('https://[::ffff:169.254.169.254]/', 'IPv4-mapped link-local', 'refused', 'refused'),
  r('https://[::ffff:10.0.0.1]/', 'IPv4-mapped private', 'refused', 'allowed'),
  r('https://[64:ff9b::7f00:1]:{port}/', 'NAT64 64:ff9b::/96 around 127.0.0.1', 'refused', 'allowed'),
  r('https://[64:ff9b::a9fe:a9fe]/', 'NAT64 around 169.254.169.254', 'refused', 'refused'),
  r('https://[64:ff9b:1::1]/', 'local-use NAT64 64:ff9b:1::/48', 'refused', 'refused'),
  r('https://[2002:a9fe:a9fe::1]/', '6to4 around 169.254.169.254', 'refused', 'refused'),
  r('https://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{port}/', 'Teredo 2001::/32 whose client is 127.0.0.1', 'refused', 'allowed'),
  // User-info tricks: the host is what the URL parser says, and credentials are refused.
  r('https://good.example@127.0.0.1:{port}/', 'a public name as user info before a loopback host', 'refused', 'refused'),
  r('https://127.0.0.1@good.example/', 'a loopback address as user info before a public host', 'refused', 'refused'),
  r('https://good.example:443@10.0.0.1/', 'user and password before a private host', 'refused', 'refused'),
  r('https://127.0.0.1:{port}\\@good.example/', 'a backslash that makes the host 127.0.0.1', 'refused', 'allowed'),
  // Names: every address they resolve to is checked.
  r('https://ten.example/', 'a name that resolves to 10.0.0.1', 'refused', 'allowed'),
  r('https://mixed.example/', 'a name with one public and one private address', 'refused', 'allowed'),
  r('https://metadata.example/', 'a name that resolves to link-local', 'refused', 'refused'),
  r('https://mapped.example:{port}/', 'a name that resolves to an IPv4-mapped loopback', 'refused', 'allowed'),
  r('https://unresolvable.example/', 'a name that does not resolve yet: saved, refused at send', 'allowed', 'allowed', { saveOnly: true }),
  // Schemes.
  r('http://public.example/', 'plain http', 'refused', 'allowed'),
  r('ftp://public.example/', 'ftp', 'refused', 'refused'),
  r('file:///etc/passwd', 'a file URL', 'refused', 'refused'),
  r('not a url', 'not a URL', 'refused', 'refused'),
  // What must keep working.
  r('https://public.example/hooks', 'a public name', 'allowed', 'allowed'),
  r('https://PUBLIC.example./hooks', 'a public name in capitals with a trailing dot', 'allowed', 'allowed'),
  r('https://v6.example/', 'a name with a public IPv6 address', 'allowed', 'allowed'),
  r('https://93.184.216.34/', 'a public IPv4 literal', 'allowed', 'allowed'),
  r('https://8.8.8.8./', 'a public IPv4 literal with a trailing dot', 'allowed', 'allowed'),
  r('https://172.32.0.1/', 'just outside 172.16/12', 'allowed', 'allowed'),
  r('https://100.128.0.1/', 'just outside 100.64/10', 'allowed', 'allowed'),
  r('https://[2606:4700:4700::1111]/', 'a public IPv6 literal', 'allowed', 'allowed'),
  r('https://[::ffff:8.8.8.8]/', 'IPv4-mapped public', 'allowed', 'allowed'),
  r('https://[64:ff9b::808:808]/', 'NAT64 around a public address', 'allowed', 'allowed'),
  r('https://[2002:808:808::1]/', '6to4 around a public address', 'allowed', 'allowed'),
];

/** The row's URL with `{port}` filled. */
export const urlOf = (row: AddressRow, port: number | string) => row.url.replace('{port}', String(port));
