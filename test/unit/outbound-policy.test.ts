// The outbound address rule, one row per URL form (test/helpers/address-table.ts): the check at
// save (text, then every address the host resolves to now) and the check a send makes before it
// connects (resolution once, every address), without and with WEBHOOK_ALLOW_PRIVATE. A fake resolver
// answers; nothing here connects anywhere. Then the pieces: range classification, a name that
// answers public then private, and the refusals that name their reason.

import { expect } from 'chai';
import { addressesProblem, classifyAddress, normalizeHost, parseCallerUrl, callerTarget, portAdmitted } from '../../src/outbound/address-policy.js';
import { OutboundClient, OutboundError } from '../../src/outbound/client.js';
import { callerUrlProblem } from '../../src/outbound/resolver.js';
import { ADDRESS_TABLE, NAMES, urlOf } from '../helpers/address-table.js';
import { fakeResolver } from '../helpers/outbound.js';

describe('outbound address rule: the table of URL forms', () => {
  it('has at least 40 forms, each refused or allowed in both modes', () => {
    expect(ADDRESS_TABLE.length).to.be.at.least(40);
    expect(new Set(ADDRESS_TABLE.map((r) => r.url)).size).to.equal(ADDRESS_TABLE.length);
  });

  for (const mode of ['strict', 'dev'] as const) {
    const allowPrivate = mode === 'dev';
    const client = new OutboundClient({ allowPrivate, resolve: fakeResolver(NAMES) });
    after(() => client.close());
    for (const row of ADDRESS_TABLE) {
      const url = urlOf(row, 443);
      const expected = row[mode];
      it(`${allowPrivate ? 'with' : 'without'} WEBHOOK_ALLOW_PRIVATE, ${row.what} (${row.url}): ${expected} at save, ${row.saveOnly ? 'refused' : expected} at send`, async () => {
        const atSave = await callerUrlProblem(url, { allowPrivate }, fakeResolver(NAMES));
        if (expected === 'allowed') expect(atSave, 'at save').to.equal(null);
        else expect(atSave, 'at save').to.be.a('string').and.not.equal('');
        // The send's own check: what the connection would go to, or the refusal before any connection.
        const atSend = await client.vet(callerTarget(url)).then(
          (address) => ({ address }),
          (err: unknown) => ({ err }),
        );
        if (expected === 'allowed' && !row.saveOnly) {
          expect(atSend, 'at send').to.have.property('address');
          const verdict = classifyAddress((atSend as { address: string }).address).verdict;
          expect(verdict).to.equal(allowPrivate ? verdict : 'public');
          expect(verdict).to.not.equal('refused');
        } else {
          const err = (atSend as { err: unknown }).err;
          expect(err, 'at send').to.be.instanceOf(OutboundError);
          expect((err as OutboundError).kind).to.equal('refused');
          expect((err as OutboundError).message).to.match(/^refused: .*nothing was sent$/);
        }
      });
    }
  }
});

describe('outbound address rule: the pieces', () => {
  const cases: Array<[string, 'public' | 'private' | 'refused']> = [
    ['93.184.216.34', 'public'],
    ['127.8.9.10', 'private'],
    ['::1', 'private'],
    ['fd00::5', 'private'],
    ['172.31.255.255', 'private'],
    ['169.254.0.1', 'refused'],
    ['fe80::abcd%eth0', 'refused'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:808:808', 'public'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'refused'],
    ['2001:0:a9fe:a9fe::1', 'refused'],
    ['ff05::2', 'refused'],
    ['192.31.196.1', 'refused'],
  ];
  for (const [address, verdict] of cases) {
    it(`classifies ${address} as ${verdict}`, () => expect(classifyAddress(address).verdict).to.equal(verdict));
  }

  it('says what an embedded address is', () => {
    expect(classifyAddress('2002:7f00:1::1').why).to.equal('a 6to4 IPv6 address of 127.0.0.1 (a loopback address)');
    expect(classifyAddress('64:ff9b::a9fe:a9fe').why).to.equal('a NAT64 IPv6 address of 169.254.169.254 (a link-local address)');
  });

  it('compares hosts lowercased, without brackets or trailing dots', () => {
    expect(normalizeHost('Foo.LocalHost..')).to.equal('foo.localhost');
    expect(normalizeHost('[::1]')).to.equal('::1');
  });

  it('checks every address a name has: one private address among public ones refuses it', () => {
    expect(addressesProblem('mixed.example', ['93.184.216.34', '10.0.0.7'], { allowPrivate: false })).to.match(
      /mixed\.example resolves to 10\.0\.0\.7, which is a private address/,
    );
    expect(addressesProblem('mixed.example', ['93.184.216.34', '10.0.0.7'], { allowPrivate: true })).to.equal(null);
    expect(addressesProblem('meta.example', ['169.254.169.254'], { allowPrivate: true })).to.match(
      /link-local address; only public, loopback and private addresses may be called/,
    );
  });

  it('a name that answers public, then private: accepted at save, refused at the send, before any connection', async () => {
    const resolve = fakeResolver({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] });
    const client = new OutboundClient({ allowPrivate: false, resolve });
    try {
      expect(await callerUrlProblem('https://rebind.example/hook', { allowPrivate: false }, resolve)).to.equal(null);
      const err = await client.request(callerTarget('https://rebind.example/hook'), { method: 'POST', body: '{}' }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(OutboundError);
      expect((err as OutboundError).message).to.equal(
        'refused: rebind.example resolves to 127.0.0.1, which is a loopback address; only public addresses may be called (WEBHOOK_ALLOW_PRIVATE=true allows loopback and private addresses in development); nothing was sent',
      );
      expect(resolve.lookups).to.deep.equal(['rebind.example', 'rebind.example']);
    } finally {
      await client.close();
    }
  });

  it('refuses user info after judging the host, so the message names what the URL points at', () => {
    const strict = parseCallerUrl('https://good.example@127.0.0.1/', { allowPrivate: false });
    expect(strict).to.deep.include({ ok: false });
    expect((strict as { problem: string }).problem).to.match(/127\.0\.0\.1 is a loopback address/);
    const dev = parseCallerUrl('https://good.example@127.0.0.1/', { allowPrivate: true });
    expect((dev as { problem: string }).problem).to.equal('must not carry a user name or password');
  });
});

describe('outbound address rule: ports', () => {
  const refused = [22, 25, 0, 1, 873, 1023];
  const admitted = [443, 80, 1024, 8080, 65535];
  for (const allowPrivate of [false, true]) {
    const client = new OutboundClient({ allowPrivate, resolve: fakeResolver(NAMES) });
    after(() => client.close());
    const schemes = allowPrivate ? ['https', 'http'] : ['https'];
    for (const scheme of schemes) {
      it(`${allowPrivate ? 'with' : 'without'} WEBHOOK_ALLOW_PRIVATE, ${scheme}: ports ${refused.join(', ')} refused at save and at send; ${admitted.join(', ')} taken`, async () => {
        for (const port of refused) {
          const url = `${scheme}://8.8.8.8:${port}/hook`;
          const parsed = parseCallerUrl(url, { allowPrivate });
          expect(parsed, url).to.deep.equal({ ok: false, problem: `must use port 443, 80 or one from 1024 to 65535, not ${port}` });
          expect(await callerUrlProblem(url, { allowPrivate }, fakeResolver(NAMES)), url).to.match(/must use port 443, 80 or one from 1024 to 65535/);
          const atSend = await client.vet(callerTarget(url)).then(
            () => null,
            (err: unknown) => err,
          );
          expect(atSend, url).to.be.instanceOf(OutboundError);
          expect((atSend as OutboundError).message).to.contain(`not ${port}; nothing was sent`);
        }
        for (const port of admitted) {
          const url = `${scheme}://8.8.8.8:${port}/hook`;
          expect(parseCallerUrl(url, { allowPrivate }), url).to.deep.include({ ok: true });
          expect(await client.vet(callerTarget(url)), url).to.equal('8.8.8.8');
        }
      });
    }
  }

  it("reads the URL parser's port text: empty (the scheme's default) is admitted", () => {
    expect(['', '80', '443', '1024', '65535'].map(portAdmitted)).to.deep.equal([true, true, true, true, true]);
    expect(['0', '22', '79', '81', '442', '1023'].map(portAdmitted)).to.deep.equal([false, false, false, false, false, false]);
  });
});
