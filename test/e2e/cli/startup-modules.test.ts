// What `svc-server serve` loads before it listens, on a fresh SQLite file (the start-up a person
// times): exactly the service's own modules listed here, and none of the packages that load on
// first use (Koa and the REST surface, the OAuth and account pages, the console, the MCP SDK, Ajv,
// jose, undici, cron-parser...). A module added to the start fails here, named: load it on first use
// (a dynamic import where it is needed), or add it to the list knowing each costs start-up time
// (docs/benchmarks.md, "Where start-up time went"). A module no longer loaded before listening is
// taken off the list, so the list stays the start's exact set. The lazy parts load on first use.

import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSvcServer, stopAllServers, runningChildren } from '../../helpers/processes.js';

/** The service's own modules loaded before the server listens (paths under dist/). */
const EAGER = [
  'src/access/authenticate.js',
  'src/account/email.js',
  'src/account/store.js',
  'src/activity/recorder.js',
  'src/activity/store.js',
  'src/auth/encryption.js',
  'src/auth/principal.js',
  'src/auth/secrets.js',
  'src/brands/directory.js',
  'src/brands/store.js',
  'src/brands/token-key.js',
  'src/catalogue/define.js',
  'src/catalogue/invoke-types.js',
  'src/catalogue/lazy.js',
  'src/config.js',
  'src/creatives/media.js',
  'src/creatives/staging.js',
  'src/creatives/storage.js',
  'src/db/connection.js',
  'src/db/migrate.js',
  'src/db/prepared.js',
  'src/db/settings.js',
  'src/db/sqlite-client.js',
  'src/db/sqlite-snapshot.js',
  'src/db/statement-cache.js',
  'src/delivery-thread.js',
  'src/errors.js',
  'src/events/catalogue.js',
  'src/events/outbox.js',
  'src/events/store.js',
  'src/events/subscribers.js',
  'src/jobs/lazy.js',
  'src/jobs/queue/claim.js',
  'src/jobs/queue/complete.js',
  'src/jobs/queue/fail.js',
  'src/jobs/queue/job.js',
  'src/jobs/queue/release.js',
  'src/jobs/queue/renew.js',
  'src/jobs/queue/stats.js',
  'src/jobs/queue/wake.js',
  'src/jobs/simple-cron.js',
  'src/jobs/worker.js',
  'src/keys/store.js',
  'src/launches/store.js',
  'src/log.js',
  'src/merge-patch.js',
  'src/money/currencies.js',
  'src/money/fx-rates.js',
  'src/oauth/keys.js',
  'src/oauth/store.js',
  'src/oauth/tokens.js',
  'src/observability/metrics.js',
  'src/observability/requests.js',
  'src/observability/tracing.js',
  'src/outbound/address-policy.js',
  'src/outbound/client.js',
  'src/outbound/resolver.js',
  'src/pagination/cursor.js',
  'src/paths.js',
  'src/pipeline/budget.js',
  'src/pipeline/faults.js',
  'src/pipeline/idempotency.js',
  'src/pipeline/invoke.js',
  'src/pipeline/rate-limit.js',
  'src/pipeline/store.js',
  'src/platforms/countries.js',
  'src/platforms/insights.js',
  'src/platforms/live-http.js',
  'src/platforms/meta/advantage.js',
  'src/platforms/meta/errors.js',
  'src/platforms/meta/rules.js',
  'src/platforms/meta/versions.js',
  'src/platforms/metered.js',
  'src/platforms/metrics-cache.js',
  'src/platforms/placements.js',
  'src/platforms/port.js',
  'src/platforms/registry.js',
  'src/platforms/sandbox/adapter.js',
  'src/platforms/sandbox/catalog.js',
  'src/platforms/sandbox/delivery.js',
  'src/platforms/sandbox/refusals.js',
  'src/platforms/sandbox/store.js',
  'src/platforms/text-limits.js',
  'src/platforms/tiktok/budgets.js',
  'src/platforms/tiktok/mapping.js',
  'src/platforms/tiktok/rules.js',
  'src/platforms/tiktok/smart-plus.js',
  'src/references/resolve.js',
  'src/schemas/ad-addresses.js',
  'src/schemas/registry.js',
  'src/schemas/text.js',
  'src/service.js',
  'src/time/zones.js',
  'src/toolsets.js',
  'src/trackers/campaigns.js',
  'src/trackers/keitaro.js',
  'src/trackers/port.js',
  'src/trackers/registry.js',
  'src/trackers/sandbox.js',
  'src/trackers/store.js',
  'src/webhooks/lanes.js',
  'src/webhooks/sender.js',
  'src/webhooks/signing.js',
  'src/wiring/job-kinds.js',
  'src/wiring/operation-areas.js',
  'src/wiring/platforms.js',
  'src/wiring/references.js',
  'src/wiring/subscribers.js',
  'surfaces/cli/create-key-usage.js',
  'surfaces/cli/suggest.js',
  'surfaces/cli/svc-server.js',
  'surfaces/health.js',
  'surfaces/http-arrival.js',
  'surfaces/http-server.js',
  'surfaces/json-body.js',
];

/** Packages that must not load before the first answer: each loads on first use. */
const LAZY_PACKAGES = [
  'koa',
  '@koa/router',
  'koa-body',
  'formidable',
  '@modelcontextprotocol/sdk',
  'ajv',
  'ajv-formats',
  'jose',
  'undici',
  'openai',
  'prom-client',
  'cron-parser',
  'luxon',
  'image-size',
  'ioredis',
  'mysql2',
  '@opentelemetry/api',
];

const MODULE_LOG_HOOK = new URL('../../helpers/module-log.js', import.meta.url).href;

describe('modules svc-server loads before it listens (sqlite)', function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-eager-'));
  });
  after(async () => {
    await stopAllServers();
    fs.rmSync(dir, { recursive: true, force: true });
    expect(runningChildren()).to.equal(0);
  });

  it('loads only the listed own modules and none of the lazy packages before listening; the REST, OAuth and console surfaces load on first use', async () => {
    const log = path.join(dir, 'modules.log');
    // JOBS=off: no worker or delivery thread, whose own modules load after listening in any case.
    const server = await startSvcServer(['serve'], {
      env: {
        DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`,
        CREATIVES_DIR: path.join(dir, 'creatives'),
        JOBS: 'off',
        LOG_LEVEL: 'info',
        MODULE_LOG: log,
        NODE_OPTIONS: `--import=${MODULE_LOG_HOOK}`,
      },
    });
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.text()).to.equal('{"status":"ok"}\n');
    // The first requests of the surfaces loaded on first use answer as ever.
    expect((await fetch(`${server.url}/v1/brands`)).status).to.equal(401);
    expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`)).status).to.equal(200);
    expect((await fetch(`${server.url}/console/sign-in`)).status).to.equal(200);

    const lines = fs.readFileSync(log, 'utf8').split('\n');
    const listening = lines.indexOf('listening');
    expect(listening, 'the server never listened').to.be.above(0);
    const dist = `file://${path.resolve(new URL('../../..', import.meta.url).pathname)}/`;
    const own = (part: string[]) =>
      part
        .filter((l) => l.startsWith(`esm ${dist}src/`) || l.startsWith(`esm ${dist}surfaces/`))
        .map((l) => l.slice(`esm ${dist}`.length))
        .sort();
    const packageOf = (l: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l)?.[1] ?? null;
    const before = lines.slice(0, listening);
    const after = lines.slice(listening + 1);

    const eager = own(before);
    expect(
      eager.filter((m) => !EAGER.includes(m)),
      'own modules loaded before listening that are not in the list: load them on first use',
    ).to.deep.equal([]);
    expect(
      EAGER.filter((m) => !eager.includes(m)),
      'listed modules no longer loaded before listening: take them off the list',
    ).to.deep.equal([]);
    const packages = new Set(before.map(packageOf).filter((p): p is string => p !== null));
    expect(
      LAZY_PACKAGES.filter((p) => packages.has(p)),
      'packages loaded before listening that should load on first use',
    ).to.deep.equal([]);
    // Of knex's dialects only SQLite's.
    expect(before.filter((l) => /node_modules\/knex\/lib\/dialects\/(?!index\.js|sqlite3\/|better-sqlite3\/)/.test(l))).to.deep.equal([]);

    // What the requests above loaded on first use.
    const later = new Set(own(after));
    for (const m of ['surfaces/rest/app.js', 'surfaces/oauth/routes.js', 'surfaces/console/routes.js']) expect(later.has(m), m).to.equal(true);
    expect(after.some((l) => packageOf(l) === 'koa')).to.equal(true);
    expect(await server.stop()).to.equal(0);
  });
});
