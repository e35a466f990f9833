// GET /readyz over a real listening server: ready once the database answers, every migration of
// the build has run and (JOBS=on) the worker claims; otherwise 503 with the envelope naming what is
// not ready, while GET /healthz (liveness) stays 200.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';

for (const dialect of dialects()) {
  describe(`GET /readyz (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    before(async () => {
      w = await startWorld({ dialect });
    });
    after(async () => {
      await w?.close();
    });

    it('answers 200 {status: "ready"} without credentials on a migrated database with the worker claiming', async () => {
      const ready = await w.request('GET', '/readyz');
      expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
      expect(ready.body).to.deep.equal({ status: 'ready' });
    });

    it('answers 503 naming the migrations while one has not run, and 200 again once it has', async () => {
      const last = await w.service.knex('knex_migrations').orderBy('id', 'desc').first();
      await w.service.knex('knex_migrations').where({ id: last.id }).delete();
      try {
        const pending = await w.request('GET', '/readyz');
        expect(pending.status).to.equal(503);
        expect(pending.body.error.code).to.equal('unavailable');
        expect(pending.body.error.details.notReady).to.deep.equal(['migrations']);
        expect(pending.body.error.message).to.contain('1 migration(s) have not run');
        expect(pending.body.error.requestId).to.equal(pending.headers.get('service-request-id'));
        const health = await w.request('GET', '/healthz');
        expect(health.status).to.equal(200);
      } finally {
        await w.service.knex('knex_migrations').insert(last);
      }
      const ready = await w.request('GET', '/readyz');
      expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
    });

    it('answers 503 naming the worker once it stopped claiming (JOBS=on)', async () => {
      await w.service.jobs.stop();
      const stopped = await w.request('GET', '/readyz');
      expect(stopped.status).to.equal(503);
      expect(stopped.body.error.details.notReady).to.deep.equal(['worker']);
      expect(stopped.body.error.message).to.contain('job worker is not claiming');
      expect((await w.request('GET', '/healthz')).status).to.equal(200);
      await w.service.startJobs();
      expect((await w.request('GET', '/readyz')).status).to.equal(200);
    });
  });
}

describe('GET /readyz with JOBS=off', function () {
  this.timeout(30_000);
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite', env: { JOBS: 'off' } });
  });
  after(async () => {
    await w?.close();
  });

  it('is ready without a worker: this process serves requests only', async () => {
    expect(w.service.jobs.claiming()).to.equal(false);
    const ready = await w.request('GET', '/readyz');
    expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
  });
});
