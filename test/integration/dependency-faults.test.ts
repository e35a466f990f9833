// The smaller rules of paths.md "Faults": which failures count as a dependency down (503 with
// Retry-After) and which stay bugs (500); a creatives folder that cannot be written (checked at
// start, 503 when it fails later); and the 409 of a running Idempotency-Key telling when the running
// attempt's lease ends.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ServiceError } from '../../src/errors.js';
import { classifyFault, failedDependency, storageFault } from '../../src/pipeline/faults.js';
import { claimIdempotencyKey } from '../../src/pipeline/idempotency.js';
import { dialects, migratedDatabase, type MigratedDatabase } from '../helpers/databases.js';
import { BrandClient, exampleWorld } from '../helpers/launches.js';
import { runSvcServer } from '../helpers/processes.js';
import { startWorld, type World } from '../helpers/world.js';

const withCode = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(code), { code, ...extra });

describe('dependency failures answer 503 unavailable with Retry-After; bugs stay 500', () => {
  const down: Array<[string, unknown, string]> = [
    ['MariaDB refusing connections', withCode('ECONNREFUSED', { errno: -111 }), 'database'],
    ['a connection reset mid-query', withCode('ECONNRESET'), 'database'],
    ['mysql2 losing the connection', withCode('PROTOCOL_CONNECTION_LOST', { fatal: true }), 'database'],
    ['MariaDB shutting down (1053)', withCode('ER_SERVER_SHUTDOWN', { errno: 1053 }), 'database'],
    ['too many connections (1040)', withCode('ER_CON_COUNT_ERROR', { errno: 1040 }), 'database'],
    ['a closed mysql2 connection', Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true }), 'database'],
    ['the pool timing out', Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }), 'database'],
    ['SQLite still busy after busy_timeout', withCode('SQLITE_BUSY'), 'database'],
    ['SQLite I/O error', withCode('SQLITE_IOERR_WRITE'), 'database'],
    ['SQLite disk full', withCode('SQLITE_FULL'), 'database'],
    ['the creatives folder read-only', storageFault('store a creative file', withCode('EROFS')), 'storage'],
    ['the creatives disk full', storageFault('store a creative file', withCode('ENOSPC')), 'storage'],
    ['Redis out of retries', Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' }), 'redis'],
    ['Redis closed', new Error('Connection is closed.'), 'redis'],
  ];
  for (const [what, err, dependency] of down) {
    it(`answers ${what} 503 unavailable naming the ${dependency}, with Retry-After`, () => {
      expect(failedDependency(err)).to.equal(dependency);
      const answer = classifyFault(err);
      expect(answer).to.be.instanceOf(ServiceError);
      expect((answer as ServiceError).code).to.equal('unavailable');
      expect((answer as ServiceError).retryAfter).to.be.greaterThan(0);
      expect((answer as ServiceError).details).to.deep.equal({ dependency });
    });
  }

  const bugs: Array<[string, unknown]> = [
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a SQL syntax error', withCode('ER_PARSE_ERROR', { errno: 1064 })],
    ['a unique violation that escaped', withCode('ER_DUP_ENTRY', { errno: 1062 })],
    ['a SQLite constraint', withCode('SQLITE_CONSTRAINT_NOTNULL')],
    ['a missing file outside the creatives storage', withCode('ENOENT')],
  ];
  for (const [what, err] of bugs) {
    it(`leaves ${what} a bug (500 internal_error)`, () => {
      expect(failedDependency(err)).to.equal(null);
      expect(classifyFault(err)).to.equal(err);
    });
  }

  it('passes a ServiceError through as it is', () => {
    const err = new ServiceError('conflict', 'no');
    expect(classifyFault(err)).to.equal(err);
  });
});

describe('the creatives folder (CREATIVES_DIR)', function () {
  this.timeout(60_000);

  it('stops svc-server serve at start with an error naming CREATIVES_DIR when the folder cannot be written', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-creatives-check-'));
    // A file where a folder should be: no process, root included, can create the folder.
    const blocked = path.join(dir, 'not-a-folder');
    fs.writeFileSync(blocked, 'x');
    try {
      const run = await runSvcServer(['serve'], {
        env: { DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`, CREATIVES_DIR: path.join(blocked, 'creatives'), PORT: '0' },
        timeoutMs: 30_000,
      });
      expect(run.code, 'exit 78: a setting is wrong').to.equal(78);
      expect(run.stderr).to.match(/CREATIVES_DIR .*not-a-folder\/creatives cannot be written/);
      expect(run.stdout).to.not.match(/listening on/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('failing after start', () => {
    let w: World;
    let dir: string;
    let client: BrandClient;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-creatives-fail-'));
      w = await startWorld({ dialect: 'sqlite', bootstrap: exampleWorld(500), env: { CREATIVES_DIR: path.join(dir, 'creatives') } });
      client = new BrandClient(w.url, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
      await client.uploadCreative('first.png');
      // The folder is replaced by a file: every write below it fails (ENOTDIR), as on a disk gone bad.
      fs.rmSync(path.join(dir, 'creatives'), { recursive: true, force: true });
      fs.writeFileSync(path.join(dir, 'creatives'), 'x');
    });
    after(async () => {
      await w?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('answers an upload 503 unavailable naming the creatives storage, with Retry-After, and stores nothing', async () => {
      const form = new FormData();
      const { makePng } = await import('../helpers/png.js');
      form.append('file', new Blob([new Uint8Array(makePng(1080, 1080))], { type: 'image/png' }), 'second.png');
      const res = await fetch(`${w.url}/v1/brands/${client.brandId}/creatives`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.key}` },
        body: form,
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(503);
      expect(body.error.code).to.equal('unavailable');
      expect(body.error.message).to.match(/CREATIVES_DIR/);
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
      const list = await client.api('GET', '/creatives');
      expect(list.body.creatives.map((c: { name: string }) => c.name)).to.deep.equal(['first.png']);
    });
  });
});

for (const dialect of dialects()) {
  describe(`409 idempotency_conflict of a running request (${dialect})`, () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await migratedDatabase(dialect);
    });
    after(async () => db?.close());

    it("says in Retry-After when the running attempt's lease ends", async () => {
      const key = `k-${crypto.randomBytes(4).toString('hex')}`;
      const request = { organizationId: 1, credentialId: 'key:1', operation: 'launch-campaign', key, input: { confirm: true }, leaseMs: 120_000 };
      const started = 1_000_000_000_000;
      const first = await claimIdempotencyKey(db.knex, { ...request, now: started });
      expect(first.kind).to.equal('run');
      const elapsed = 7_300;
      const refused = await claimIdempotencyKey(db.knex, { ...request, now: started + elapsed }).then(
        () => null,
        (e: unknown) => e as ServiceError,
      );
      expect(refused?.code).to.equal('idempotency_conflict');
      expect(refused?.retryAfter).to.equal(Math.ceil((request.leaseMs - elapsed) / 1000));
      expect(refused?.details).to.deep.equal({ reason: 'in_progress' });
    });
  });
}
