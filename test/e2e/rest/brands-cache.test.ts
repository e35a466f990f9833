// GET /v1/brands served from the per-process directory (KEY_CACHE_MS): pages built once are
// served again, never across organizations or brand limits, and a brand added shows up once the
// cached view expires.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';

const CACHE_MS = 400;

for (const dialect of dialects()) {
  describe(`GET /v1/brands from the cached directory (${dialect})`, function () {
    let world: World;
    before(async () => {
      world = await startWorld({ dialect, env: { KEY_CACHE_MS: String(CACHE_MS) } });
    });
    after(async () => world?.close());

    const ids = async (key: string, query = '') => {
      const reply = await world.request('GET', `/v1/brands${query}`, { key });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      return { ids: reply.body.accounts.map((a: any) => a.brandId) as number[], nextCursor: reply.body.nextCursor as string | null };
    };

    it('gives every key its own brands, however the calls interleave', async () => {
      const all = [world.brandId('acme', 'shoes'), world.brandId('acme', 'hats'), world.brandId('acme', 'multi')];
      for (let round = 0; round < 3; round++) {
        expect((await ids(world.key('acme', 'ci'))).ids).to.deep.equal(all);
        expect((await ids(world.key('acme', 'limited'))).ids).to.deep.equal([world.brandId('acme', 'shoes')]);
        expect((await ids(world.key('other', 'otherKey'))).ids).to.deep.equal([world.brandId('other', 'rival')]);
      }
    });

    it('walks the same pages again from the cache, and a brand-limited key pages only over its brands', async () => {
      const walk = async (key: string) => {
        const seen: number[] = [];
        let cursor: string | null = null;
        do {
          const page: { ids: number[]; nextCursor: string | null } = await ids(key, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          seen.push(...page.ids);
          cursor = page.nextCursor;
        } while (cursor);
        return seen;
      };
      const first = await walk(world.key('acme', 'ci'));
      expect(first).to.have.length(3);
      expect(await walk(world.key('acme', 'ci'))).to.deep.equal(first);
      expect(await walk(world.key('acme', 'limited'))).to.deep.equal([world.brandId('acme', 'shoes')]);
    });

    it('shows a brand added directly in the database once the cached view expires', async () => {
      const key = world.key('acme', 'ci');
      const before = (await ids(key)).ids;
      const [added] = await world.service
        .knex('brands')
        .insert({ organization_id: world.seed.organizations.acme.id, name: 'Late Co', active: true, created_at: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, CACHE_MS + 100));
      const after = (await ids(key)).ids;
      expect(after).to.deep.equal([...before, Number(added)]);
      const row = (await world.request('GET', '/v1/brands', { key })).body.accounts.at(-1);
      expect(row).to.deep.equal({
        brandId: Number(added),
        brandName: 'Late Co',
        accountId: null,
        accountName: null,
        connected: false,
        active: false,
        organizationId: world.seed.organizations.acme.id,
      });
    });
  });
}
