// Pieces shared by the tests of webhook deliveries: a tenant (bootstrapped through the binary for
// `svc-server` children), and an endpoint's whole delivery log read over REST.

import type { Knex } from 'knex';
import { pino } from 'pino';
import { requestJson } from './http.js';
import { runSvcServer } from './processes.js';
import { createMigratedTestDatabase, type TestDatabase } from './databases.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Dialect } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';

export interface Tenant {
  organizationId: number;
  brandId: number;
  /** A key with read and write scopes on every brand. */
  key: string;
}

/** One organization with one brand and a read-write key (bootstrap document). */
export const tenantDocument = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Hooks',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [{ ref: 'shoes', name: 'Shoes Co', adAccounts: [] }],
      apiKeys: [{ ref: 'ops', name: 'Ops key', scopes: ['read', 'write'], surfaces: { api: true, mcp: false }, brands: null }],
    },
  ],
};

/** The ids and key of the bootstrap result of `tenantDocument`. */
export function tenantOf(result: { organizations: Record<string, any> }): Tenant {
  const acme = result.organizations.acme;
  return { organizationId: acme.id, brandId: acme.brands.shoes.id, key: acme.apiKeys.ops.secret };
}

/** Runs `svc-server bootstrap -` on `databaseUrl` with `tenantDocument`. */
export async function seedTenant(databaseUrl: string): Promise<Tenant> {
  const run = await runSvcServer(['bootstrap', '-'], { env: { DATABASE_URL: databaseUrl }, input: JSON.stringify(tenantDocument), timeoutMs: 30_000 });
  if (run.code !== 0) throw new Error(`bootstrap exited ${run.code}: ${run.stderr}`);
  return tenantOf(JSON.parse(run.stdout));
}

export interface DeliveryView {
  deliveryId: number;
  eventId: string;
  status: string;
  attempts: Array<{ statusCode: number | null; error: string | null }>;
}

/** Every delivery of an endpoint from list-webhook-deliveries, page by page (newest first). */
export async function allDeliveries(baseUrl: string, key: string, endpointId: number): Promise<DeliveryView[]> {
  const out: DeliveryView[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await requestJson(baseUrl, 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?${query}`, { key });
    if (page.status !== 200) throw new Error(`list-webhook-deliveries answered ${page.status}: ${JSON.stringify(page.body)}`);
    out.push(...page.body.deliveries);
    cursor = page.body.nextCursor;
  } while (cursor);
  return out;
}

/**
 * A real Service on a fresh, migrated database holding `tenantDocument`, started as `svc-server
 * serve` starts it: its delivery threads open the service again from `env` (DATABASE_URL added).
 */
export async function threadedService(
  dialect: Dialect,
  env: Record<string, string>,
): Promise<{ db: TestDatabase; tenant: Tenant; service: Service; principal: Principal }> {
  const db = await createMigratedTestDatabase(dialect);
  const setup = openDatabase(db.url);
  await migrateLatest(setup.knex);
  const tenant = tenantOf(await applyBootstrap(setup.knex, new SchemaRegistry(loadSchemaFiles()), tenantDocument));
  await setup.knex.destroy();
  const all = { DATABASE_URL: db.url, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true', ...env };
  const service = await Service.open({ config: loadConfig(all), log: pino({ level: 'silent' }), deliveryThread: { env: all } });
  const principal = await service.authenticate(`Bearer ${tenant.key}`, 'api');
  return { db, tenant, service, principal };
}

/** Each delivery of an endpoint, read from the database: its event, its status and the status codes of its recorded attempts. */
export async function deliveryLogOf(knex: Knex, endpointId: number): Promise<Array<{ eventId: string; status: string; attempts: number[] }>> {
  const rows = await knex('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where({ 'd.endpoint_id': endpointId })
    .select('d.id', 'd.status', 'e.public_id');
  const attempts = await knex('webhook_attempts').whereIn(
    'delivery_id',
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    eventId: String(r.public_id),
    status: String(r.status),
    attempts: attempts.filter((a) => Number(a.delivery_id) === Number(r.id)).map((a) => Number(a.status_code)),
  }));
}
