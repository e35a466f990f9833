// Cursor pagination over a real listening server: walking GET /v1/brands and the activity list,
// newest first, stable under concurrent inserts, cursors bound to endpoint, filters and limit,
// the activity filters and the page summary, on each storage dialect.

import crypto from 'node:crypto';
import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type Reply, type World } from '../../helpers/world.js';
import { testOperations, testSchemas } from '../../helpers/test-operations.js';

const DAY = 86_400_000;
const CURSOR_MESSAGE = 'cursor is invalid or expired';

interface Row {
  entityId: string;
  action?: string;
  userId?: number;
  userName?: string;
  accountId?: string | null;
  entityType?: string;
  /** Age of the entry in milliseconds (default: its position, one second apart, oldest first). */
  age?: number;
}

function expectCursorRefused(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
  expect(reply.body.error.code).to.equal('validation_failed');
  expect(reply.body.error.message).to.equal(CURSOR_MESSAGE);
  expect(reply.body.error.requestId).to.equal(reply.headers.get('service-request-id'));
  expect(reply.body.error.details.map((d: any) => d.field)).to.deep.equal(['cursor']);
}

function expectValidation(reply: Reply, field: string, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
  expect(reply.body.error.code).to.equal('validation_failed');
  expect(reply.body.error.details.map((d: any) => [d.field, d.code])).to.deep.equal([[field, code]]);
}

for (const dialect of dialects()) {
  describe(`REST pagination (${dialect})`, function () {
    let world: World;
    let ci: string;
    let acme: number;
    let olive: number;
    let mia: number;
    let brandSeq = 0;

    before(async () => {
      // KEY_CACHE_MS=0: brands the tests insert directly are listed at once (no per-process staleness).
      world = await startWorld({ dialect, extraOperations: testOperations, extraSchemas: testSchemas, env: { KEY_CACHE_MS: '0' } });
      ci = world.key('acme', 'ci');
      acme = world.seed.organizations.acme.id;
      olive = world.seed.organizations.acme.users.olive.id;
      mia = world.seed.organizations.acme.users.mia.id;
    });
    after(async () => world?.close());

    /** A fresh brand of acme without ad accounts, so each test pages over its own activity. */
    async function newBrand(): Promise<number> {
      const [id] = await world.service.knex('brands').insert({ organization_id: acme, name: `Paging ${++brandSeq}`, active: true, created_at: Date.now() });
      return Number(id);
    }

    /** Inserts activity rows in order (oldest first); returns them newest first as the API lists them. */
    async function addActivity(brandId: number, rows: Row[]): Promise<Row[]> {
      const now = Date.now();
      for (const [i, r] of rows.entries()) {
        await world.service.knex('activity_entries').insert({
          organization_id: acme,
          brand_id: brandId,
          account_id: r.accountId ?? null,
          user_id: r.userId ?? olive,
          user_name: r.userName ?? 'Olive Owner',
          api_key_id: null,
          entity_type: r.entityType ?? 'campaign',
          entity_id: r.entityId,
          entity_name: `Entity ${r.entityId}`,
          action: r.action ?? 'launch.update',
          created_at: now - (r.age ?? (rows.length - i) * 1000),
        });
      }
      return [...rows].reverse();
    }

    /** Follows nextCursor from the first page; returns every page. */
    async function walk(path: string, query: string, listField: string): Promise<Array<{ items: any[]; nextCursor: string | null }>> {
      const pages: Array<{ items: any[]; nextCursor: string | null }> = [];
      let cursor: string | null = null;
      for (let i = 0; i < 200; i++) {
        const q: string = [query, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&');
        const reply: Reply = await world.request('GET', `${path}${q ? `?${q}` : ''}`, { key: ci });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        pages.push({ items: reply.body[listField], nextCursor: reply.body.nextCursor });
        cursor = reply.body.nextCursor;
        if (cursor === null) return pages;
        expect(cursor).to.be.a('string').and.not.empty;
      }
      throw new Error('pagination did not end');
    }

    const activityPath = (brandId: number) => `/v1/brands/${brandId}/activity`;

    describe('GET /v1/brands', () => {
      for (const limit of [1, 2, 3, 100]) {
        it(`walks every brand once in brandId order with limit=${limit}, nextCursor null only on the last page`, async () => {
          const expected = (await world.service.knex('brands').where('organization_id', acme).orderBy('id').pluck('id')).map(Number);
          expect(expected.length).to.be.greaterThan(2);
          const pages = await walk('/v1/brands', `limit=${limit}`, 'accounts');
          expect(pages).to.have.length(Math.ceil(expected.length / limit));
          for (const [i, p] of pages.entries()) {
            expect(p.items.length).to.equal(i < pages.length - 1 ? limit : expected.length - limit * (pages.length - 1));
            if (i < pages.length - 1) expect(p.nextCursor).to.be.a('string');
          }
          expect(pages[pages.length - 1].nextCursor).to.equal(null);
          expect(pages.flatMap((p) => p.items.map((a: any) => a.brandId))).to.deep.equal(expected);
        });
      }

      it('pages a brand-limited key over its own brands only', async () => {
        const reply = await world.request('GET', '/v1/brands?limit=1', { key: world.key('acme', 'limited') });
        expect(reply.status).to.equal(200);
        expect(reply.body.accounts.map((a: any) => a.brandId)).to.deep.equal([world.brandId('acme', 'shoes')]);
        expect(reply.body.nextCursor).to.equal(null);
      });

      for (const bad of ['0', '101', 'abc', '-1', '']) {
        it(`refuses limit=${JSON.stringify(bad)} with 400 validation_failed on limit`, async () => {
          const reply = await world.request('GET', `/v1/brands?limit=${bad}`, { key: ci });
          expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
          expect(reply.body.error.code).to.equal('validation_failed');
          expect(reply.body.error.details.map((d: any) => d.field)).to.deep.equal(['limit']);
        });
      }
    });

    describe('GET /v1/brands/{brandId}/activity', () => {
      const seven = () => Array.from({ length: 7 }, (_, i) => ({ entityId: `e${i + 1}` }));

      for (const limit of [1, 2, 3, 7]) {
        it(`walks every entry once, newest first, with limit=${limit}`, async () => {
          const brand = await newBrand();
          const expected = (await addActivity(brand, seven())).map((r) => r.entityId);
          const pages = await walk(activityPath(brand), `limit=${limit}`, 'activities');
          expect(pages).to.have.length(Math.ceil(7 / limit));
          for (const p of pages.slice(0, -1)) {
            expect(p.items).to.have.length(limit);
            expect(p.nextCursor).to.be.a('string');
          }
          expect(pages[pages.length - 1].nextCursor).to.equal(null);
          const all = pages.flatMap((p) => p.items);
          expect(all.map((a) => a.entityId)).to.deep.equal(expected);
          const times = all.map((a) => Date.parse(a.when));
          expect(times).to.deep.equal([...times].sort((a, b) => b - a));
        });
      }

      it('answers an empty first page with nextCursor null', async () => {
        const reply = await world.request('GET', `${activityPath(await newBrand())}?limit=1`, { key: ci });
        expect(reply.status).to.equal(200);
        expect(reply.body.activities).to.deep.equal([]);
        expect(reply.body.nextCursor).to.equal(null);
      });

      it('does not let rows created during paging appear in or shift the unread pages', async () => {
        const brand = await newBrand();
        const expected = (await addActivity(brand, seven())).map((r) => r.entityId);
        const first = await world.request('GET', `${activityPath(brand)}?limit=2`, { key: ci });
        expect(first.body.activities.map((a: any) => a.entityId)).to.deep.equal(expected.slice(0, 2));

        // New entries arrive between pages: through the API and directly.
        for (const echo of ['new-1', 'new-2']) {
          const made = await world.request('POST', `/v1/brands/${brand}/test-echo`, { key: ci, body: { echo, entityId: echo } });
          expect(made.status, JSON.stringify(made.body)).to.equal(201);
        }
        await addActivity(brand, [{ entityId: 'new-3', age: 0 }]);

        const rest: string[] = [];
        let cursor: string | null = first.body.nextCursor;
        while (cursor) {
          const page = await world.request('GET', `${activityPath(brand)}?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: ci });
          expect(page.status, JSON.stringify(page.body)).to.equal(200);
          expect(page.body.activities.length).to.be.at.most(2);
          rest.push(...page.body.activities.map((a: any) => a.entityId));
          cursor = page.body.nextCursor;
        }
        expect(rest).to.deep.equal(expected.slice(2));

        // A walk started afresh shows the new entries first.
        const fresh = await walk(activityPath(brand), 'limit=2', 'activities');
        expect(fresh.flatMap((p) => p.items.map((a: any) => a.entityId))).to.deep.equal(['new-3', 'new-2', 'new-1', ...expected]);
      });

      it('uses 50 as the default limit, and the cursor of a default-size page continues it', async function () {
        this.timeout(20_000);
        const brand = await newBrand();
        const rows = Array.from({ length: 53 }, (_, i) => ({ entityId: `d${i + 1}` }));
        const expected = (await addActivity(brand, rows)).map((r) => r.entityId);
        const first = await world.request('GET', activityPath(brand), { key: ci });
        expect(first.status).to.equal(200);
        expect(first.body.activities).to.have.length(50);
        expect(first.body.summary.totalEvents).to.equal(50);
        expect(first.body.nextCursor).to.be.a('string');
        const second = await world.request('GET', `${activityPath(brand)}?cursor=${encodeURIComponent(first.body.nextCursor)}`, { key: ci });
        expect(second.status, JSON.stringify(second.body)).to.equal(200);
        expect(second.body.nextCursor).to.equal(null);
        expect([...first.body.activities, ...second.body.activities].map((a: any) => a.entityId)).to.deep.equal(expected);
      });

      it('allows limit=100, the maximum, and limit=1, the minimum', async () => {
        const brand = await newBrand();
        await addActivity(brand, seven());
        const max = await world.request('GET', `${activityPath(brand)}?limit=100`, { key: ci });
        expect(max.status).to.equal(200);
        expect(max.body.activities).to.have.length(7);
        const min = await world.request('GET', `${activityPath(brand)}?limit=1`, { key: ci });
        expect(min.status).to.equal(200);
        expect(min.body.activities).to.have.length(1);
      });

      for (const [bad, code] of [
        ['0', 'too_small'],
        ['101', 'too_big'],
        ['abc', 'invalid_type'],
      ] as const) {
        it(`refuses limit=${bad} with 400 validation_failed (${code})`, async () => {
          expectValidation(await world.request('GET', `${activityPath(world.brandId('acme', 'shoes'))}?limit=${bad}`, { key: ci }), 'limit', code);
        });
      }
    });

    describe('cursors', () => {
      let brand: number;
      let otherBrand: number;
      /** First-page cursors: activity with limit=2 and days=30, and brands with limit=1. */
      let activityCursor: string;
      let brandsCursor: string;
      let secret: Buffer;

      before(async () => {
        brand = await newBrand();
        otherBrand = await newBrand();
        await addActivity(
          brand,
          Array.from({ length: 6 }, (_, i) => ({ entityId: i % 2 ? 'odd' : 'even' })),
        );
        await addActivity(
          otherBrand,
          Array.from({ length: 6 }, (_, i) => ({ entityId: `o${i}` })),
        );
        const a = await world.request('GET', `${activityPath(brand)}?limit=2&days=30`, { key: ci });
        activityCursor = a.body.nextCursor;
        const b = await world.request('GET', '/v1/brands?limit=1', { key: ci });
        brandsCursor = b.body.nextCursor;
        expect(activityCursor).to.be.a('string');
        expect(brandsCursor).to.be.a('string');
        const setting = await world.service.knex('service_settings').where({ name: 'cursor_secret' }).first('value');
        secret = Buffer.from(setting.value, 'hex');
      });

      const sign = (body: string) => crypto.createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22);
      /** Re-signs a real cursor after changing its payload, as only the server could. */
      const reforge = (cursor: string, change: (p: any) => void) => {
        const payload = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
        change(payload);
        const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
        return `${body}.${sign(body)}`;
      };
      const activity = (query: string, cursor: string) =>
        world.request('GET', `${activityPath(brand)}?${query}&cursor=${encodeURIComponent(cursor)}`, { key: ci });

      it('continues with the same filters and limit, given in any order', async () => {
        const reply = await activity('days=30&limit=2', activityCursor);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        expect(reply.body.activities).to.have.length(2);
      });

      const tampered: Array<[string, (c: string) => string]> = [
        ['with a changed character in its payload', (c) => (c[3] === 'A' ? `${c.slice(0, 3)}B${c.slice(4)}` : `${c.slice(0, 3)}A${c.slice(4)}`)],
        ['with a changed character in its signature', (c) => (c.endsWith('A') ? `${c.slice(0, -1)}B` : `${c.slice(0, -1)}A`)],
        ['without its signature', (c) => c.split('.')[0]],
        ['with an extra part', (c) => `${c}.x`],
        ['that is not a cursor at all', () => 'abc'],
        ['whose payload is not JSON, signed with the wrong key', () => `${Buffer.from('not json').toString('base64url')}.${'A'.repeat(22)}`],
      ];
      for (const [name, tamper] of tampered) {
        it(`refuses a cursor ${name} with "${CURSOR_MESSAGE}"`, async () => {
          expectCursorRefused(await activity('limit=2&days=30', tamper(activityCursor)));
        });
      }

      it('refuses a GET /v1/brands cursor on the activity list', async () => {
        expectCursorRefused(await world.request('GET', `${activityPath(brand)}?limit=1&cursor=${encodeURIComponent(brandsCursor)}`, { key: ci }));
      });

      it('refuses an activity cursor on GET /v1/brands', async () => {
        expectCursorRefused(await world.request('GET', `/v1/brands?limit=2&cursor=${encodeURIComponent(activityCursor)}`, { key: ci }));
      });

      it("refuses one brand's activity cursor on another brand", async () => {
        expectCursorRefused(
          await world.request('GET', `${activityPath(otherBrand)}?limit=2&days=30&cursor=${encodeURIComponent(activityCursor)}`, { key: ci }),
        );
      });

      for (const query of ['limit=3&days=30', 'limit=1&days=30', 'days=30']) {
        it(`refuses the cursor reused with a different limit (${query})`, async () => {
          expectCursorRefused(await activity(query, activityCursor));
        });
      }

      for (const query of ['limit=2&days=7', 'limit=2', 'limit=2&days=30&entityId=odd', 'limit=2&days=30&userId=0']) {
        it(`refuses the cursor reused with different filters (${query})`, async () => {
          expectCursorRefused(await activity(query, activityCursor));
        });
      }

      it('refuses a brands cursor reused with a different limit', async () => {
        expectCursorRefused(await world.request('GET', `/v1/brands?limit=2&cursor=${encodeURIComponent(brandsCursor)}`, { key: ci }));
      });

      it('accepts a cursor re-signed unchanged (the forging below is faithful)', async () => {
        const same = reforge(activityCursor, () => {});
        expect(same).to.equal(activityCursor);
        const reply = await activity(
          'limit=2&days=30',
          reforge(activityCursor, (p) => (p.t = Date.now())),
        );
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
      });

      it('refuses a correctly signed cursor older than 24 hours', async () => {
        expectCursorRefused(
          await activity(
            'limit=2&days=30',
            reforge(activityCursor, (p) => (p.t = Date.now() - 25 * 3_600_000)),
          ),
        );
      });

      it('refuses a correctly signed cursor of an older format', async () => {
        expectCursorRefused(
          await activity(
            'limit=2&days=30',
            reforge(activityCursor, (p) => (p.v = 0)),
          ),
        );
      });
    });

    describe('activity filters', () => {
      it('keeps only entries within days (default 7, 1 to 90)', async () => {
        const brand = await newBrand();
        await addActivity(brand, [
          { entityId: 'd100', age: 100 * DAY },
          { entityId: 'd89', age: 89 * DAY },
          { entityId: 'd40', age: 40 * DAY },
          { entityId: 'd10', age: 10 * DAY },
          { entityId: 'd2', age: 2 * DAY },
          { entityId: 'h1', age: 3_600_000 },
        ]);
        const ids = async (query: string) => {
          const reply = await world.request('GET', `${activityPath(brand)}${query}`, { key: ci });
          expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
          return { ids: reply.body.activities.map((a: any) => a.entityId), days: reply.body.summary.days };
        };
        expect(await ids('')).to.deep.equal({ ids: ['h1', 'd2'], days: 7 });
        expect(await ids('?days=1')).to.deep.equal({ ids: ['h1'], days: 1 });
        expect(await ids('?days=30')).to.deep.equal({ ids: ['h1', 'd2', 'd10'], days: 30 });
        expect(await ids('?days=90')).to.deep.equal({ ids: ['h1', 'd2', 'd10', 'd40', 'd89'], days: 90 });
      });

      it('keeps only entries of userId', async () => {
        const brand = await newBrand();
        await addActivity(brand, [
          { entityId: 'a', userId: olive },
          { entityId: 'b', userId: mia, userName: 'Mia Member' },
          { entityId: 'c', userId: olive },
          { entityId: 'd', userId: mia, userName: 'Mia Member' },
        ]);
        const list = async (userId: number) => (await world.request('GET', `${activityPath(brand)}?userId=${userId}`, { key: ci })).body.activities;
        const mine = await list(mia);
        expect(mine.map((a: any) => a.entityId)).to.deep.equal(['d', 'b']);
        expect(mine.every((a: any) => a.userId === mia && a.userName === 'Mia Member')).to.equal(true);
        expect((await list(olive)).map((a: any) => a.entityId)).to.deep.equal(['c', 'a']);
        expect(await list(999_999)).to.deep.equal([]);
      });

      it('keeps only entries of entityId, and pages within the filter', async () => {
        const brand = await newBrand();
        await addActivity(
          brand,
          Array.from({ length: 7 }, (_, i) => ({ entityId: i % 3 === 0 ? 'camp-1' : 'camp-2', action: `step.${i}` })),
        );
        const pages = await walk(activityPath(brand), 'entityId=camp-1&limit=1', 'activities');
        expect(pages.flatMap((p) => p.items.map((a: any) => [a.entityId, a.action]))).to.deep.equal([
          ['camp-1', 'step.6'],
          ['camp-1', 'step.3'],
          ['camp-1', 'step.0'],
        ]);
      });

      it('keeps only entries of accountId on a brand with several ad accounts', async () => {
        const multi = world.brandId('acme', 'multi');
        await addActivity(multi, [
          { entityId: 'm1', accountId: 'act_2001' },
          { entityId: 't1', accountId: 'biz_2002' },
          { entityId: 'm2', accountId: 'act_2001' },
          { entityId: 'n1', accountId: null },
        ]);
        const meta = await world.request('GET', `${activityPath(multi)}?accountId=act_2001`, { key: ci });
        expect(meta.status, JSON.stringify(meta.body)).to.equal(200);
        expect(meta.body.activities.map((a: any) => [a.entityId, a.accountId])).to.deep.equal([
          ['m2', 'act_2001'],
          ['m1', 'act_2001'],
        ]);
        const tiktok = await world.request('GET', `${activityPath(multi)}?accountId=biz_2002&limit=1`, { key: ci });
        expect(tiktok.body.activities.map((a: any) => a.entityId)).to.deep.equal(['t1']);
        expect(tiktok.body.nextCursor).to.equal(null);
      });

      it('combines filters', async () => {
        const brand = await newBrand();
        await addActivity(brand, [
          { entityId: 'x', userId: mia, userName: 'Mia Member', age: 20 * DAY },
          { entityId: 'x', userId: mia, userName: 'Mia Member', action: 'recent' },
          { entityId: 'y', userId: mia, userName: 'Mia Member' },
          { entityId: 'x', userId: olive },
        ]);
        const reply = await world.request('GET', `${activityPath(brand)}?entityId=x&userId=${mia}&days=7`, { key: ci });
        expect(reply.body.activities.map((a: any) => a.action)).to.deep.equal(['recent']);
      });
    });

    describe('activity summary', () => {
      it('counts events, distinct actions, users and entities over the returned page only', async () => {
        const brand = await newBrand();
        await addActivity(brand, [
          { entityId: 'c1', action: 'launch.create', userName: 'Olive Owner' },
          { entityId: 'c1', action: 'budget.edit', userId: mia, userName: 'Mia Member' },
          { entityId: 'c2', action: 'launch.create', userName: 'Olive Owner' },
          { entityId: 'c3', action: 'status.pause', userName: 'API key: CI key' },
        ]);
        const whole = await world.request('GET', `${activityPath(brand)}?days=30`, { key: ci });
        expect(whole.body.summary).to.deep.equal({
          days: 30,
          totalEvents: 4,
          groupedActions: 3,
          perUser: { 'Olive Owner': 2, 'Mia Member': 1, 'API key: CI key': 1 },
          perEntity: { c1: 2, c2: 1, c3: 1 },
        });

        const first = await world.request('GET', `${activityPath(brand)}?limit=2`, { key: ci });
        expect(first.body.summary).to.deep.equal({
          days: 7,
          totalEvents: 2,
          groupedActions: 2,
          perUser: { 'API key: CI key': 1, 'Olive Owner': 1 },
          perEntity: { c3: 1, c2: 1 },
        });
        const second = await world.request('GET', `${activityPath(brand)}?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { key: ci });
        expect(second.body.summary).to.deep.equal({
          days: 7,
          totalEvents: 2,
          groupedActions: 2,
          perUser: { 'Mia Member': 1, 'Olive Owner': 1 },
          perEntity: { c1: 2 },
        });
      });

      it('is all zeros on an empty page', async () => {
        const reply = await world.request('GET', activityPath(await newBrand()), { key: ci });
        expect(reply.body.summary).to.deep.equal({ days: 7, totalEvents: 0, groupedActions: 0, perUser: {}, perEntity: {} });
      });
    });

    describe('activity made with an API key', () => {
      it('shows userName "API key: <key name>" and the key creator as userId (Olive made the CI key, Ada the writer key)', async () => {
        const brand = await newBrand();
        for (const [ref, echo] of [
          ['ci', 'first'],
          ['writer', 'second'],
        ] as const) {
          const made = await world.request('POST', `/v1/brands/${brand}/test-echo`, { key: world.key('acme', ref), body: { echo, entityId: `camp-${echo}` } });
          expect(made.status, JSON.stringify(made.body)).to.equal(201);
        }
        const reply = await world.request('GET', activityPath(brand), { key: ci });
        expect(reply.status).to.equal(200);
        expect(reply.body.activities.map((a: any) => ({ ...a, when: typeof a.when }))).to.deep.equal([
          {
            userId: world.seed.organizations.acme.users.ada.id,
            userName: 'API key: Writer',
            entityType: 'campaign',
            entityId: 'camp-second',
            entityName: 'second',
            action: 'test.echo',
            when: 'string',
            accountId: null,
          },
          {
            userId: olive,
            userName: 'API key: CI key',
            entityType: 'campaign',
            entityId: 'camp-first',
            entityName: 'first',
            action: 'test.echo',
            when: 'string',
            accountId: null,
          },
        ]);
        for (const a of reply.body.activities) expect(Math.abs(Date.parse(a.when) - Date.now())).to.be.lessThan(60_000);
        expect(reply.body.summary.perUser).to.deep.equal({ 'API key: Writer': 1, 'API key: CI key': 1 });
      });
    });
  });
}
