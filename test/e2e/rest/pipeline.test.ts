// The pipeline board over REST against a real listening server: columns and their order, cards
// placed, moved and deleted, the version guard (409 stale_read, also under two racing moves), the
// pipeline.card.moved event written with each placing, and every publish case of a column that
// publishes: a key with publish publishes within its ceiling, a key without it places the card and
// publishes nothing, a publish past the ceiling or of an invalid launch is refused and says why.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, buildLaunch, createLaunch, type Api } from '../../helpers/launch-builders.js';
import { uploadCreative } from '../../helpers/launch-builders.js';
import { boardWorld, commitmentStates, committedCents, eventsOf } from '../../helpers/board.js';

const NOTHING = { attempted: false, published: false, reason: null };

for (const dialect of dialects()) {
  describe(`pipeline board over REST (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: string;
    let editor: string;
    let shoes: number;
    let hats: number;
    let api: Api;

    const pipe = (method: string, path: string, body?: unknown, key = ci, brandId = shoes, headers: Record<string, string> = {}) =>
      w.request(method, `/v1/brands/${brandId}/pipeline${path}`, { key, body, headers });
    const board = (key = ci, brandId = shoes) => pipe('GET', '', undefined, key, brandId);
    const newColumn = async (body: Record<string, unknown>, brandId = shoes) => {
      const r = await pipe('POST', '/columns', body, ci, brandId);
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body;
    };
    const newCard = async (body: Record<string, unknown>, key = ci) => {
      const r = await pipe('POST', '/cards', body, key);
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body;
    };
    const move = (cardId: number, body: Record<string, unknown>, key = ci) => pipe('PATCH', `/cards/${cardId}`, body, key);
    /** A workflow of the brand for a column to link to. */
    const newWorkflow = async (brandId: number) => {
      const r = await w.request('POST', `/v1/brands/${brandId}/workflows`, {
        key: ci,
        body: { workflowName: 'Review', trigger: { kind: 'manual' }, nodes: [{ nodeId: 'review', kind: 'review', settings: {} }], edges: [] },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.workflowId as number;
    };
    const launchStatus = async (launchId: string) => (await api('GET', `/launches/${launchId}`)).body.status;

    before(async () => {
      w = await startWorld({ dialect, bootstrap: boardWorld });
      ci = w.key('acme', 'ci');
      editor = w.key('acme', 'editor');
      shoes = w.brandId('acme', 'shoes');
      hats = w.brandId('acme', 'hats');
      api = brandApi(w, ci, shoes);
    });
    after(async () => {
      await w?.close();
    });

    describe('columns', () => {
      it('keeps columns in board order: inserted at a position, moved, renamed, linked and unlinked, deleted', async () => {
        const draft = await newColumn({ name: 'Draft' }, hats);
        expect(draft).to.deep.include({ brandId: hats, name: 'Draft', position: 0, publishes: false, workflowId: null });
        const live = await newColumn({ name: 'Live', publishes: true }, hats);
        expect(live).to.deep.include({ position: 1, publishes: true });
        const workflowId = await newWorkflow(hats);
        const review = await newColumn({ name: 'Review', position: 1, workflowId: String(workflowId) }, hats);
        expect(review).to.deep.include({ position: 1, workflowId });
        const names = async () => (await board(ci, hats)).body.columns.map((c: any) => `${c.position}:${c.name}`);
        expect(await names()).to.deep.equal(['0:Draft', '1:Review', '2:Live']);

        const moved = await pipe('PATCH', `/columns/${live.columnId}`, { position: 0 }, ci, hats);
        expect(moved.status).to.equal(200);
        expect(moved.body).to.deep.include({ columnId: live.columnId, position: 0, publishes: true });
        expect(await names()).to.deep.equal(['0:Live', '1:Draft', '2:Review']);

        const renamed = await pipe('PATCH', `/columns/${review.columnId}`, { name: 'In review', workflowId: null, publishes: true }, ci, hats);
        expect(renamed.body).to.deep.include({ name: 'In review', workflowId: null, publishes: true, position: 2 });
        const far = await pipe('PATCH', `/columns/${draft.columnId}`, { position: 99 }, ci, hats);
        expect(far.body.position).to.equal(2);
        expect(await names()).to.deep.equal(['0:Live', '1:In review', '2:Draft']);

        const deleted = await pipe('DELETE', `/columns/${live.columnId}`, undefined, ci, hats);
        expect(deleted.status).to.equal(200);
        expect(deleted.body).to.deep.equal({ columnId: live.columnId, deleted: true });
        expect(await names()).to.deep.equal(['0:In review', '1:Draft']);
        for (const c of (await board(ci, hats)).body.columns) await pipe('DELETE', `/columns/${c.columnId}`, undefined, ci, hats);
        expect((await board(ci, hats)).body).to.deep.equal({ columns: [], cards: [] });
      });

      it('refuses a second column of the same name (409 conflict), an empty change and unknown fields (400)', async () => {
        const first = await newColumn({ name: 'Backlog' }, hats);
        const again = await pipe('POST', '/columns', { name: 'backlog' }, ci, hats);
        expect(again.status).to.equal(409);
        expect(again.body.error).to.deep.include({ code: 'conflict', details: { columnId: first.columnId } });
        const empty = await pipe('PATCH', `/columns/${first.columnId}`, {}, ci, hats);
        expect(empty.status).to.equal(400);
        expect(empty.body.error.code).to.equal('validation_failed');
        const bad = await pipe('POST', '/columns', { name: '', colour: 'red', workflowId: 0 }, ci, hats);
        expect(bad.status).to.equal(400);
        expect(bad.body.error.details.map((d: any) => d.field).sort()).to.deep.equal(['colour', 'name', 'workflowId']);
        const huge = await pipe('POST', '/columns', { name: 'Huge', workflowId: '9999999999' }, ci, hats);
        expect(huge.status).to.equal(400);
        expect(huge.body.error.details).to.deep.equal([{ field: 'workflowId', code: 'too_big', message: 'must be at most 2147483647' }]);
        await pipe('DELETE', `/columns/${first.columnId}`, undefined, ci, hats);
      });

      it("answers 404 for another brand's column, 403 brand_not_allowed beyond a key's brands, 403 insufficient_scope without write", async () => {
        const mine = await newColumn({ name: 'Only hats' }, hats);
        const viaShoes = await pipe('PATCH', `/columns/${mine.columnId}`, { name: 'x' }, ci, shoes);
        expect(viaShoes.status).to.equal(404);
        expect(viaShoes.body.error.code).to.equal('not_found');
        const limited = await pipe('GET', '', undefined, w.key('acme', 'hatsOnly'), shoes);
        expect(limited.status).to.equal(403);
        expect(limited.body.error.code).to.equal('brand_not_allowed');
        const rival = await pipe('GET', '', undefined, ci, w.brandId('other', 'rival'));
        expect(rival.status).to.equal(404);
        const reader = w.key('acme', 'reader');
        expect((await board(reader, hats)).status).to.equal(200);
        for (const [method, path, body] of [
          ['POST', '/columns', { name: 'Nope' }],
          ['PATCH', `/columns/${mine.columnId}`, { name: 'Nope' }],
          ['DELETE', `/columns/${mine.columnId}`, undefined],
        ] as const) {
          const refused = await pipe(method, path, body, reader, hats);
          expect(refused.status, `${method} ${path}`).to.equal(403);
          expect(refused.body.error).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'write' } });
        }
        await pipe('DELETE', `/columns/${mine.columnId}`, undefined, ci, hats);
      });
    });

    describe('cards', () => {
      let draft: any;
      let review: any;
      let backlog: any;
      let live: any;
      let creativeId: number;

      before(async () => {
        backlog = await newColumn({ name: 'Backlog' });
        draft = await newColumn({ name: 'Draft' });
        review = await newColumn({ name: 'Review', workflowId: await newWorkflow(shoes) });
        live = await newColumn({ name: 'Live', publishes: true });
        creativeId = await uploadCreative(w, ci, shoes);
      });

      it('places cards at the position asked, moves them between positions and columns, and reads them back in board order', async () => {
        const l1 = await createLaunch(api, 'Spring sale');
        const l2 = await createLaunch(api, 'Summer sale');
        const a = await newCard({ launchId: l1, columnId: draft.columnId });
        expect(a).to.deep.include({
          columnId: draft.columnId,
          launchId: l1,
          launchStatus: 'draft',
          title: 'Spring sale',
          position: 0,
          version: 1,
          publish: NOTHING,
          publishError: null,
        });
        const b = await newCard({ launchId: Number(l2), columnId: String(draft.columnId), title: 'Summer', position: 0 });
        expect(b).to.deep.include({ title: 'Summer', position: 0, version: 1 });
        const order = async () =>
          (await board()).body.cards
            .filter((c: any) => [a.cardId, b.cardId].includes(c.cardId))
            .map((c: any) => `${c.columnId === draft.columnId ? 'draft' : 'review'}:${c.position}:${c.title}`);
        expect(await order()).to.deep.equal(['draft:0:Summer', 'draft:1:Spring sale']);

        const up = await move(a.cardId, { position: 0, version: 1 });
        expect(up.status).to.equal(200);
        expect(up.body).to.deep.include({ position: 0, version: 2, publish: NOTHING });
        expect(await order()).to.deep.equal(['draft:0:Spring sale', 'draft:1:Summer']);

        const across = await move(b.cardId, { columnId: review.columnId, version: 1 });
        expect(across.body).to.deep.include({ columnId: review.columnId, position: 0, version: 2, publish: NOTHING });
        const retitled = await move(b.cardId, { title: 'Summer 2030', version: 2 });
        expect(retitled.body).to.deep.include({ columnId: review.columnId, position: 0, version: 3, title: 'Summer 2030' });
        expect(await order()).to.deep.equal(['draft:0:Spring sale', 'review:0:Summer 2030']);

        // Columns come in order and cards column by column.
        const whole = (await board()).body;
        expect(whole.columns.map((c: any) => c.name)).to.deep.equal(['Backlog', 'Draft', 'Review', 'Live']);
        const columnIndex = new Map(whole.columns.map((c: any, i: number) => [c.columnId, i]));
        const keys = whole.cards.map((c: any) => (columnIndex.get(c.columnId) as number) * 10_000 + c.position);
        expect(keys).to.deep.equal([...keys].sort((x: number, y: number) => x - y));

        const gone = await pipe('DELETE', `/cards/${a.cardId}`);
        expect(gone.status).to.equal(200);
        expect(gone.body).to.deep.equal({ cardId: a.cardId, deleted: true });
        expect((await move(a.cardId, { position: 0, version: 2 })).status).to.equal(404);
        await pipe('DELETE', `/cards/${b.cardId}`);
      });

      it('writes pipeline.card.moved with the destination column and its workflow when a card enters a column, and only then', async () => {
        const launchId = await createLaunch(api, 'Evented');
        const before = (await eventsOf(w, 'pipeline.card.moved', shoes)).length;
        const card = await newCard({ launchId, columnId: draft.columnId });
        await move(card.cardId, { columnId: review.columnId, version: 1 });
        await move(card.cardId, { position: 0, version: 2 });
        await move(card.cardId, { title: 'Renamed', version: 3 });
        const events = (await eventsOf(w, 'pipeline.card.moved', shoes)).slice(before);
        expect(events).to.deep.equal([
          {
            brandId: shoes,
            cardId: card.cardId,
            launchId,
            fromColumnId: null,
            toColumnId: draft.columnId,
            workflowId: null,
            movedBy: 'API key: CI key',
            canPublish: true,
          },
          {
            brandId: shoes,
            cardId: card.cardId,
            launchId,
            fromColumnId: draft.columnId,
            toColumnId: review.columnId,
            workflowId: review.workflowId,
            movedBy: 'API key: CI key',
            canPublish: true,
          },
        ]);
        await pipe('DELETE', `/cards/${card.cardId}`);
      });

      it('answers 409 stale_read for a move naming an old version, and changes nothing', async () => {
        const launchId = await createLaunch(api, 'Stale');
        const card = await newCard({ launchId, columnId: draft.columnId });
        await move(card.cardId, { columnId: review.columnId, version: 1 });
        const events = (await eventsOf(w, 'pipeline.card.moved', shoes)).length;
        const stale = await move(card.cardId, { columnId: backlog.columnId, version: 1 });
        expect(stale.status).to.equal(409);
        expect(stale.body.error).to.deep.include({ code: 'stale_read', details: { cardId: card.cardId, currentVersion: 2 } });
        expect(stale.body.error.message).to.contain('version 2');
        const now = (await board()).body.cards.find((c: any) => c.cardId === card.cardId);
        expect(now).to.deep.include({ columnId: review.columnId, version: 2 });
        expect((await eventsOf(w, 'pipeline.card.moved', shoes)).length).to.equal(events);
        await pipe('DELETE', `/cards/${card.cardId}`);
      });

      it('lets one of two parallel moves of the same version win; the other answers 409 and writes no event', async () => {
        for (let round = 0; round < 4; round++) {
          const launchId = await createLaunch(api, `Race ${round}`);
          const card = await newCard({ launchId, columnId: draft.columnId });
          const before = (await eventsOf(w, 'pipeline.card.moved', shoes)).length;
          const targets = [review.columnId, backlog.columnId];
          const replies = await Promise.all(targets.map((columnId) => move(card.cardId, { columnId, version: 1 })));
          expect(replies.map((r) => r.status).sort()).to.deep.equal([200, 409]);
          const winner = replies.find((r) => r.status === 200)!;
          const loser = replies.find((r) => r.status === 409)!;
          expect(loser.body.error).to.deep.include({ code: 'stale_read', details: { cardId: card.cardId, currentVersion: 2 } });
          const now = (await board()).body.cards.find((c: any) => c.cardId === card.cardId);
          expect(now).to.deep.include({ columnId: winner.body.columnId, version: 2 });
          const events = (await eventsOf(w, 'pipeline.card.moved', shoes)).slice(before);
          expect(events.map((e) => e.toColumnId)).to.deep.equal([winner.body.columnId]);
          await pipe('DELETE', `/cards/${card.cardId}`);
        }
      });

      it("answers 400 on the field for another brand's launch or column (as for a missing one), 404 for its card, and 409 conflict for a launch already on the board", async () => {
        const hatsLaunch = await createLaunch(brandApi(w, ci, hats), 'Hats launch');
        const foreign = await pipe('POST', '/cards', { launchId: hatsLaunch, columnId: draft.columnId });
        expect(foreign.status).to.equal(400);
        expect(foreign.body.error.code).to.equal('validation_failed');
        expect(foreign.body.error.details.map((d: any) => d.field)).to.deep.equal(['launchId']);
        const hatsColumn = await newColumn({ name: 'Hats column' }, hats);
        const launchId = await createLaunch(api, 'Mine');
        const wrongColumn = await pipe('POST', '/cards', { launchId, columnId: hatsColumn.columnId });
        expect(wrongColumn.status).to.equal(400);
        expect(wrongColumn.body.error.details.map((d: any) => d.field)).to.deep.equal(['columnId']);
        const card = await newCard({ launchId, columnId: draft.columnId });
        const twice = await pipe('POST', '/cards', { launchId, columnId: review.columnId });
        expect(twice.status).to.equal(409);
        expect(twice.body.error).to.deep.include({ code: 'conflict', details: { cardId: card.cardId } });
        expect((await move(card.cardId, { columnId: hatsColumn.columnId, version: 1 })).status).to.equal(400);
        expect((await pipe('PATCH', `/cards/${card.cardId}`, { position: 0, version: 1 }, ci, hats)).status).to.equal(404);
        expect((await pipe('DELETE', `/cards/${card.cardId}`, undefined, ci, hats)).status).to.equal(404);
        // A column that holds a card is not deleted.
        const full = await pipe('DELETE', `/columns/${draft.columnId}`);
        expect(full.status).to.equal(409);
        expect(full.body.error).to.deep.include({ code: 'conflict' });
        expect(full.body.error.details.cards).to.be.at.least(1);
        await pipe('DELETE', `/cards/${card.cardId}`);
        await pipe('DELETE', `/columns/${hatsColumn.columnId}`, undefined, ci, hats);
      });

      it('takes the card of a deleted draft launch off the board, and the cards below it move up', async () => {
        const first = await newCard({ launchId: await createLaunch(api, 'Dropped'), columnId: backlog.columnId, position: 0 });
        const second = await newCard({ launchId: await createLaunch(api, 'Kept'), columnId: backlog.columnId, position: 1 });
        expect((await api('DELETE', `/launches/${first.launchId}`)).status).to.equal(200);
        const cards = (await board()).body.cards.filter((c: any) => c.columnId === backlog.columnId);
        expect(cards.map((c: any) => [c.cardId, c.position])).to.deep.equal([[second.cardId, 0]]);
        const up = await move(second.cardId, { title: 'Still here', version: 1 });
        expect(up.body).to.deep.include({ position: 0, version: 2 });
        await pipe('DELETE', `/cards/${second.cardId}`);
      });

      it('publishes the launch of a card moved into a publishing column by a key with publish, counting its budget once', async () => {
        const built = await buildLaunch(api, { title: 'Goes live', creativeId });
        const committed = await committedCents(w, 'acme', 'ci');
        const card = await newCard({ launchId: built.launchId, columnId: review.columnId });
        expect(card.publish).to.deep.equal(NOTHING);
        const moved = await move(card.cardId, { columnId: live.columnId, version: 1 });
        expect(moved.status).to.equal(200);
        expect(moved.body).to.deep.include({ columnId: live.columnId, launchStatus: 'published', version: 2, publishError: null });
        expect(moved.body.publish).to.deep.equal({ attempted: true, published: true, reason: null });
        expect(await launchStatus(built.launchId)).to.equal('published');
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + 5000);
        expect(await commitmentStates(w, built.launchId)).to.deep.equal(['committed']);
        const published = (await eventsOf(w, 'launch.published', shoes)).filter((e) => e.launchId === built.launchId);
        expect(published).to.have.length(1);
        expect(published[0]).to.deep.include({ committedMinorUnits: 5000, actor: 'API key: CI key' });
        // Moving within the column, or out and back in, publishes nothing more.
        const within = await move(card.cardId, { position: 0, version: 2 });
        expect(within.body.publish).to.deep.equal(NOTHING);
        await move(card.cardId, { columnId: review.columnId, version: 3 });
        const back = await move(card.cardId, { columnId: live.columnId, version: 4 });
        expect(back.body.publish).to.deep.equal(NOTHING);
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + 5000);
      });

      it('publishes only the plan a move names: planFingerprint of a launch changed since places the card and publishes nothing (reason stale_read)', async () => {
        const built = await buildLaunch(api, { title: 'Plan bound', creativeId });
        const committed = await committedCents(w, 'acme', 'ci');
        const card = await newCard({ launchId: built.launchId, columnId: review.columnId });
        const preview = await w.request('POST', `/v1/brands/${shoes}/launches/${built.launchId}/publish`, {
          key: w.key('acme', 'ci'),
          body: { confirm: false },
          headers: { 'Idempotency-Key': `plan-preview-${built.launchId}` },
        });
        expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
        const seen = preview.body.planFingerprint as string;
        const raised = await w.request('PATCH', `/v1/brands/${shoes}/launches/${built.launchId}/nodes/${built.campaignId}`, {
          key: w.key('acme', 'ci'),
          body: { properties: { budget: { dailyAmount: 4000 } } },
        });
        expect(raised.status, JSON.stringify(raised.body)).to.equal(200);
        const moved = await move(card.cardId, { columnId: live.columnId, version: 1, planFingerprint: seen });
        expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
        expect(moved.body).to.deep.include({ columnId: live.columnId, launchStatus: 'draft', version: 2 });
        expect(moved.body.publish).to.deep.equal({ attempted: true, published: false, reason: 'stale_read' });
        expect(moved.body.publishError).to.deep.include({ code: 'stale_read' });
        expect(moved.body.publishError.details.planFingerprint).to.not.equal(seen);
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed);
        expect(await commitmentStates(w, built.launchId)).to.deep.equal([]);
      });

      it('publishes a card created in a publishing column once, however often the create is retried with its Idempotency-Key', async () => {
        const built = await buildLaunch(api, { title: 'Straight to live', creativeId, campaign: { budget: { dailyAmount: 1000 } } });
        const committed = await committedCents(w, 'acme', 'ci');
        const headers = { 'Idempotency-Key': `card-${built.launchId}` };
        const first = await pipe('POST', '/cards', { launchId: built.launchId, columnId: live.columnId }, ci, shoes, headers);
        expect(first.status).to.equal(201);
        expect(first.body.publish).to.deep.equal({ attempted: true, published: true, reason: null });
        const again = await pipe('POST', '/cards', { launchId: built.launchId, columnId: live.columnId }, ci, shoes, headers);
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + 1000);
        expect((await board()).body.cards.filter((c: any) => c.launchId === built.launchId)).to.have.length(1);
        expect((await eventsOf(w, 'launch.published', shoes)).filter((e) => e.launchId === built.launchId)).to.have.length(1);
      });

      it('places the card of a key without publish and publishes nothing: reason publish_scope_missing', async () => {
        const built = await buildLaunch(api, { title: 'Not mine to publish', creativeId });
        const committed = await committedCents(w, 'acme', 'ci');
        const card = await newCard({ launchId: built.launchId, columnId: review.columnId }, editor);
        const moved = await move(card.cardId, { columnId: live.columnId, version: 1 }, editor);
        expect(moved.status).to.equal(200);
        expect(moved.body).to.deep.include({ columnId: live.columnId, launchStatus: 'draft', version: 2, publishError: null });
        expect(moved.body.publish).to.deep.equal({ attempted: false, published: false, reason: 'publish_scope_missing' });
        const events = await eventsOf(w, 'pipeline.card.moved', shoes);
        expect(events[events.length - 1]).to.deep.include({ cardId: card.cardId, toColumnId: live.columnId });
        // Created straight into the publishing column: the same.
        const other = await buildLaunch(api, { title: 'Also not mine', creativeId });
        const created = await newCard({ launchId: other.launchId, columnId: live.columnId }, editor);
        expect(created.publish).to.deep.equal({ attempted: false, published: false, reason: 'publish_scope_missing' });
        for (const l of [built.launchId, other.launchId]) {
          expect(await launchStatus(l)).to.equal('draft');
          expect(await commitmentStates(w, l)).to.deep.equal([]);
        }
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed);
      });

      it('places the card but publishes nothing past the ceiling: reason spend_ceiling_exceeded, nothing reserved', async () => {
        const committed = await committedCents(w, 'acme', 'ci');
        // One dollar more than the $100 ceiling leaves.
        const built = await buildLaunch(api, { title: 'Too big', creativeId, campaign: { budget: { dailyAmount: 10_000 - committed + 100 } } });
        const card = await newCard({ launchId: built.launchId, columnId: review.columnId });
        const moved = await move(card.cardId, { columnId: live.columnId, version: 1 });
        expect(moved.status).to.equal(200);
        expect(moved.body).to.deep.include({ columnId: live.columnId, version: 2, launchStatus: 'draft' });
        expect(moved.body.publish).to.deep.equal({ attempted: true, published: false, reason: 'spend_ceiling_exceeded' });
        expect(moved.body.publishError.code).to.equal('spend_ceiling_exceeded');
        const amount = 10_000 - committed + 100;
        expect(moved.body.publishError.details).to.deep.equal({
          ceilingMinorUnits: 10_000,
          committedMinorUnits: committed,
          amountMinorUnits: amount,
          accounts: [{ accountId: 'act_1001', currency: 'USD', amountMinorUnits: amount, countedUsdCents: amount }],
        });
        expect(await launchStatus(built.launchId)).to.equal('draft');
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed);
        expect(await commitmentStates(w, built.launchId)).to.deep.equal([]);
        const refusals = (await eventsOf(w, 'spend_ceiling.exceeded', shoes)).filter((e) => e.operation === 'launch-campaign');
        expect(refusals[refusals.length - 1]).to.deep.include({ amountMinorUnits: 10_000 - committed + 100 });
        expect((await board()).body.cards.find((c: any) => c.cardId === card.cardId)).to.deep.include({ columnId: live.columnId, version: 2 });
      });

      it('places the card of an invalid launch but publishes nothing: reason validation_failed with the launch issues', async () => {
        const committed = await committedCents(w, 'acme', 'ci');
        const launchId = await createLaunch(api, 'Empty launch');
        const card = await newCard({ launchId, columnId: review.columnId });
        const moved = await move(card.cardId, { columnId: live.columnId, version: 1 });
        expect(moved.status).to.equal(200);
        expect(moved.body.publish).to.deep.equal({ attempted: true, published: false, reason: 'validation_failed' });
        expect(moved.body.publishError.message).to.match(/^Launch validation failed: \d+ issues\.$/);
        expect(moved.body.publishError.details.map((d: any) => d.field)).to.include('campaigns');
        expect(moved.body).to.deep.include({ columnId: live.columnId, launchStatus: 'draft' });
        expect(await committedCents(w, 'acme', 'ci')).to.equal(committed);
      });
    });
  });

  describe(`a publishing card move and the rate limit (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;

    before(async () => {
      // One request in flight at a time: the publish a move starts runs within the move's own slot.
      w = await startWorld({ dialect, bootstrap: boardWorld, env: { RATE_LIMIT_CONCURRENCY: '1', RATE_LIMIT_PER_MINUTE: '1000' } });
    });
    after(async () => {
      await w?.close();
    });

    it('counts a move that publishes as one request, and its publish is never refused for want of a second slot', async () => {
      const ci = w.key('acme', 'ci');
      const shoes = w.brandId('acme', 'shoes');
      const api = brandApi(w, ci, shoes);
      const built = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes) });
      const draft = (await api('POST', '/pipeline/columns', { name: 'Draft' })).body;
      const live = (await api('POST', '/pipeline/columns', { name: 'Live', publishes: true })).body;
      const card = await api('POST', '/pipeline/cards', { launchId: built.launchId, columnId: draft.columnId });
      const moved = await api('PATCH', `/pipeline/cards/${card.body.cardId}`, { columnId: live.columnId, version: 1 });
      expect(moved.status).to.equal(200);
      expect(moved.body.publish).to.deep.equal({ attempted: true, published: true, reason: null });
      const remaining = (r: { headers: Headers }) => Number(r.headers.get('ratelimit-remaining'));
      expect(remaining(card) - remaining(moved)).to.equal(1);
    });
  });
}
