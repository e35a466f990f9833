// Starts a real listening server on a fresh database with the standard world (or another
// bootstrap document), and offers a small fetch wrapper for the tests.

import { pino } from 'pino';
import type { Dialect } from '../../src/db/connection.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap, type BootstrapResult } from '../../src/bootstrap.js';
import { seedDemoIfEmpty, seedDemoReview, type DemoSeed } from '../../src/demo.js';
import { loadConfig, type Config } from '../../src/config.js';
import { SchemaRegistry, loadSchemaFiles, type JsonSchema } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import type { OperationDefinition } from '../../src/catalogue/define.js';
import { startHttpServer, type RunningServer } from '../../surfaces/http-server.js';
import { createMigratedTestDatabase, type TestDatabase } from './databases.js';
import { standardWorld } from './fixture.js';
import { requestJson, type HttpReply, type RequestOptions } from './http.js';
import type { Resolver } from '../../src/outbound/resolver.js';
import { fakeResolver } from './outbound.js';

export interface WorldOptions {
  dialect: Dialect;
  bootstrap?: unknown;
  env?: Record<string, string>;
  extraOperations?: OperationDefinition[];
  extraSchemas?: JsonSchema[];
  /** Resolves the hosts of caller-given URLs (default: a fake resolver that knows no name: tests never use the real DNS). */
  resolveHost?: Resolver;
  /** Seed what `npm start` seeds into an empty database (the demo organization) instead of a bootstrap document. */
  demo?: boolean;
}

export type Reply<T = any> = HttpReply<T>;
export type { RequestOptions };

export class World {
  constructor(
    readonly db: TestDatabase,
    readonly service: Service,
    readonly server: RunningServer,
    readonly seed: BootstrapResult,
    readonly config: Config,
    /** What the demo seed printed (its keys and logins), when the world is the demo. */
    readonly demo: DemoSeed | null = null,
  ) {}

  get url(): string {
    return this.server.url;
  }

  /** The secret of a key from the bootstrap document, e.g. key('acme', 'ci'). */
  key(org: string, ref: string): string {
    return this.seed.organizations[org].apiKeys[ref].secret;
  }

  brandId(org: string, ref: string): number {
    return this.seed.organizations[org].brands[ref].id;
  }

  request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    return requestJson<T>(this.url, method, path, opts);
  }

  async close(): Promise<void> {
    await this.server.close(1000);
    await this.service.close();
    await this.db.drop();
  }
}

/** A fresh database on `dialect`, migrated and bootstrapped, behind a server on a free port. */
export async function startWorld(options: WorldOptions): Promise<World> {
  const db = await createMigratedTestDatabase(options.dialect);
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', SVC_STRICT_OUTPUT: 'true', DATABASE_URL: db.url, ...(options.env ?? {}) });
  const setup = openDatabase(db.url);
  let seed: BootstrapResult;
  let demo: DemoSeed | null = null;
  try {
    await migrateLatest(setup.knex);
    const schemas = new SchemaRegistry(loadSchemaFiles());
    if (options.demo) demo = await seedDemoIfEmpty(setup.knex, schemas);
    seed = demo ? demo.result : await applyBootstrap(setup.knex, schemas, options.bootstrap ?? standardWorld);
  } finally {
    await setup.knex.destroy();
  }
  const service = await Service.open({
    config,
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    extraOperations: options.extraOperations,
    extraSchemas: options.extraSchemas,
    resolveHost: options.resolveHost ?? fakeResolver(),
  });
  // The demo's waiting review is made through the catalogue, as `npm start` makes it.
  if (demo) await seedDemoReview(service, demo);
  const server = await startHttpServer(service, 0, '127.0.0.1');
  await service.startJobs();
  return new World(db, service, server, seed, config, demo);
}
