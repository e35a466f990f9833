#!/usr/bin/env node
// svc-server: `serve [--demo]`, `migrate`, `bootstrap FILE|-`, `create-key`, `rotate-signing-key`
// (docs/operations.md).

import { checkCreativesDir } from '../../src/creatives/storage.js';
import fs from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { DEMO_OWNER_EMAIL, seedDemoIfEmpty } from '../../src/demo.js';
import { ServiceError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import { startHttpServer } from '../http-server.js';
import { rotateSigningKey } from '../../src/oauth/keys.js';
import { CREATE_KEY_USAGE, createKeyCommand } from './create-key.js';
import { didYouMean } from './suggest.js';

const USAGE = `Usage:
  svc-server serve [--demo]   start REST (/v1) and MCP (/mcp); runs pending migrations first
                              --demo seeds a demo organization into an empty database (npm start)
  svc-server migrate          run pending migrations and exit
  svc-server bootstrap FILE   run migrations, apply a bootstrap JSON file (- reads stdin), print the result JSON
  svc-server create-key --org ORG --created-by EMAIL --name NAME [--scopes ...] [--publish-ceiling-dollars N] ...
                              print a new API key for an existing organization (see svc-server create-key --help)
  svc-server rotate-signing-key
                              add a new OAuth token-signing key; older keys keep verifying until their tokens expire

Configuration comes from the environment (PORT, HOST, DATABASE_URL, BASE_URL, ...): see README.md.`;

const SERVER_COMMANDS = ['serve', 'migrate', 'bootstrap', 'create-key', 'rotate-signing-key', 'help'];

/** A start-up failure the person can fix from its message alone: printed as one line, without a stack. */
class StartupError extends Error {}

/** Opens the listening socket, turning a port someone else holds into a message that says what to do. */
async function listen(service: Service, port: number, host: string): Promise<Awaited<ReturnType<typeof startHttpServer>>> {
  try {
    return await startHttpServer(service, port, host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw err;
    await service.close();
    const why = code === 'EADDRINUSE' ? 'is already in use (is another svc-server running?)' : 'may not be opened by this user';
    throw new StartupError(
      `Port ${port} on ${host} ${why}: stop what holds it, or start on another port with PORT, for example PORT=${port === 8080 ? 8081 : 8080} npm start.`,
    );
  }
}

async function migrate(url: string): Promise<void> {
  const db = openDatabase(url);
  try {
    const applied = await migrateLatest(db.knex);
    process.stderr.write(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}\n` : 'Database is up to date.\n');
  } finally {
    await db.knex.destroy();
  }
}

async function bootstrap(url: string, file: string | undefined): Promise<number> {
  if (!file) {
    process.stderr.write('bootstrap needs a FILE argument (or - for standard input).\n');
    return 2;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    process.stderr.write(`Could not read ${file === '-' ? 'standard input' : file} as JSON: ${(err as Error).message}\n`);
    return 2;
  }
  const db = openDatabase(url);
  try {
    await migrateLatest(db.knex);
    const result = await applyBootstrap(db.knex, new SchemaRegistry(), raw);
    for (const w of result.warnings ?? []) process.stderr.write(`warning: ${w.field}: ${w.message}\n`);
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'validation_failed') {
      process.stderr.write(`${err.message}\n`);
      for (const d of (err.details as Array<{ field: string; message: string }>) ?? []) process.stderr.write(`  ${d.field}: ${d.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await db.knex.destroy();
  }
}

async function serve(demo: boolean): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  // A creatives folder that cannot be written stops the start with a message naming CREATIVES_DIR, not the first upload.
  await checkCreativesDir(config.creativesDir);
  const db = openDatabase(config.databaseUrl);
  try {
    const applied = await migrateLatest(db.knex);
    if (applied.length) log.info({ applied }, 'migrations applied');
  } finally {
    await db.knex.destroy();
  }
  const service = await Service.open({ config, log });
  if (demo) {
    const seed = await seedDemoIfEmpty(service.knex, service.schemas);
    if (!seed) {
      // A restart: the demo's keys were shown once, at first start, and cannot be shown again.
      process.stdout.write(
        [
          '',
          'The demo organization was seeded at first start; its keys were shown then and are not shown again.',
          `  New key:  npx svc-server create-key --org "Demo Agency" --created-by ${DEMO_OWNER_EMAIL} --name "My key" --scopes read,write,publish --surfaces api,mcp --publish-ceiling-dollars 500`,
          '',
        ].join('\n') + '\n',
      );
    } else {
      process.stdout.write(
        [
          '',
          'Seeded a demo organization (shown once):',
          `  API key:       ${seed.apiKey}`,
          `  Reviewer key:  ${seed.reviewerKey}`,
          `  Owner login:   ${seed.ownerEmail} / ${seed.ownerPassword}`,
          `  Admin login:   ${seed.adminEmail} / ${seed.adminPassword}`,
          `  Try:           curl -H "Authorization: Bearer ${seed.apiKey}" ${config.baseUrl}/v1/brands`,
          `  API reference: ${config.baseUrl}/v1/openapi.json`,
          `  Lost a key?    npx svc-server create-key --org "Demo Agency" --created-by ${seed.ownerEmail} --name "My key" --scopes read,write,publish --surfaces api,mcp --publish-ceiling-dollars 500`,
          '',
        ].join('\n') + '\n',
      );
    }
  }
  const running = await listen(service, config.port, config.host);
  const jobs = await service.startJobs();
  log.info({ url: running.url, baseUrl: config.baseUrl, jobs }, `listening on ${running.url}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const grace = config.shutdownGraceMs;
    log.info({ signal, graceMs: grace }, 'shutting down: no more claims, finishing running jobs and in-flight requests');
    // A request or pool stuck on a dependency must not keep the process alive for ever.
    setTimeout(() => {
      log.error(`shutdown did not finish within ${grace + 10_000} ms; exiting anyway`);
      process.exit(1);
    }, grace + 10_000).unref();
    // Jobs stop being claimed at once; what still runs after the grace is released to other processes.
    await Promise.all([running.close(grace), service.jobs.stop(grace)]);
    await service.close(grace);
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve(rest.includes('--demo'));
      return -1;
    case 'migrate':
      await migrate(loadConfig().databaseUrl);
      return 0;
    case 'bootstrap':
      return bootstrap(loadConfig().databaseUrl, rest[0]);
    case 'create-key': {
      if (rest.includes('--help') || rest.includes('-h')) {
        process.stdout.write(CREATE_KEY_USAGE + '\n');
        return 0;
      }
      const db = openDatabase(loadConfig().databaseUrl);
      try {
        await migrateLatest(db.knex);
        return await createKeyCommand(db.knex, rest);
      } finally {
        await db.knex.destroy();
      }
    }
    case 'rotate-signing-key': {
      const db = openDatabase(loadConfig().databaseUrl);
      try {
        await migrateLatest(db.knex);
        const kid = await rotateSigningKey(db.knex);
        process.stdout.write(`${JSON.stringify({ kid })}\n`);
        process.stderr.write(`New signing key ${kid} is active; running servers sign with it within 5 minutes.\n`);
        return 0;
      } finally {
        await db.knex.destroy();
      }
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Unknown command "${command}".${didYouMean(command, SERVER_COMMANDS)}\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`svc-server: ${err instanceof StartupError ? err.message : ((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
