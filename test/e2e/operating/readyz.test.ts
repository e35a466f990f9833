// GET /readyz over a real listening server: ready once the database answers, every migration of
// the build has run and (JOBS=on) the worker claims; otherwise 503 with the envelope naming what is
// not ready, while GET /healthz (liveness) stays 200. A Graph version ending soon is a notice, not a
// failure: one start-up line and `notices` on /readyz.

import { expect } from 'chai';
import { createTestDatabase, dialects, type TestDatabase } from '../../helpers/databases.js';
import { startSvcServer, stopAllServers } from '../../helpers/processes.js';
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

describe('a META_GRAPH_URL whose Graph version ends within 60 days (v24.0, ended 2026-11-10)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('sqlite');
  });
  after(async () => {
    await stopAllServers();
    await db?.drop();
  });

  it('start-up logs one line naming its end date, and /readyz carries the notice while still answering 200', async () => {
    const running = await startSvcServer(['serve'], {
      env: { DATABASE_URL: db.url, PORT: '0', JOBS: 'off', META_GRAPH_URL: 'http://127.0.0.1:9/v24.0', LOG_LEVEL: 'info' },
    });
    const notices = running.stdout.split('\n').filter((l) => l.includes('META_GRAPH_URL') && l.includes('2026-11-10'));
    expect(notices, running.stdout).to.have.length(1);
    expect(JSON.parse(notices[0])).to.deep.include({ level: 40, component: 'meta_graph_version' });
    const ready = await fetch(`${running.url}/readyz`);
    const body = await ready.json();
    expect(ready.status, JSON.stringify(body)).to.equal(200);
    expect(body.status).to.equal('ready');
    expect(body.notices).to.have.length(1);
    expect(body.notices[0].component).to.equal('meta_graph_version');
    expect(body.notices[0].message).to.match(/^Graph version v24\.0 \(META_GRAPH_URL\) ended on 2026-11-10;/);
    expect(await running.stop('SIGTERM')).to.equal(0);
  });

  it("a version older than the table's oldest row (v19.0): start-up and /readyz say it has ended and is answered as the oldest living version", async () => {
    const running = await startSvcServer(['serve'], {
      env: { DATABASE_URL: db.url, PORT: '0', JOBS: 'off', META_GRAPH_URL: 'http://127.0.0.1:9/v19.0', LOG_LEVEL: 'info' },
    });
    const notices = running.stdout.split('\n').filter((l) => l.includes('META_GRAPH_URL') && l.includes('v19.0'));
    expect(notices, running.stdout).to.have.length(1);
    expect(JSON.parse(notices[0]).msg ?? JSON.parse(notices[0]).message).to.match(
      /older than v22\.0.*so it has ended; Meta answers it as the oldest living version, v2\d\.0/,
    );
    const body = await (await fetch(`${running.url}/readyz`)).json();
    expect(body.status).to.equal('ready');
    expect(body.notices.map((n: { message: string }) => n.message)).to.satisfy((m: string[]) => m.length === 1 && /oldest living version/.test(m[0]));
    expect(await running.stop('SIGTERM')).to.equal(0);
  });

  it('the default version says nothing: no notice line, /readyz exactly {status: "ready"}', async () => {
    const running = await startSvcServer(['serve'], { env: { DATABASE_URL: db.url, PORT: '0', JOBS: 'off' } });
    expect(running.stdout).to.not.contain('META_GRAPH_URL');
    const ready = await fetch(`${running.url}/readyz`);
    expect(await ready.json()).to.deep.equal({ status: 'ready' });
    expect(await running.stop('SIGTERM')).to.equal(0);
  });
});
