#!/usr/bin/env node
// svc-server: `serve [--demo]`, `migrate`, `bootstrap FILE|-`, `create-key`, `rotate-signing-key`
// (docs/operations.md).

import { checkCreativesDir } from '../../src/creatives/storage.js';
import fs from 'node:fs';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { loadConfig, tokenEncryptionKey, type Config } from '../../src/config.js';
import { knexConfigFor, openDatabase, sqliteFolderProblem } from '../../src/db/connection.js';
import { failedDependency } from '../../src/pipeline/faults.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { ServiceError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import { startHttpServer } from '../http-server.js';
import { rotateSigningKey } from '../../src/oauth/keys.js';
import { didYouMean } from './suggest.js';
import { CREATE_KEY_OPTIONS, CREATE_KEY_USAGE, type ParseArgsOptions } from './create-key-usage.js';

const USAGE = `Usage:
  svc-server serve [--demo]   start REST (/v1) and MCP (/mcp); runs pending migrations first
                              --demo seeds a demo organization into an empty database (npm start)
  svc-server migrate          run pending migrations and exit
  svc-server bootstrap FILE   run migrations, apply a bootstrap JSON file (- reads stdin), print the result JSON
  svc-server create-key --org ORG --created-by EMAIL --name NAME [--scopes ...] [--publish-ceiling-dollars N] ...
                              print a new API key for an existing organization (see svc-server create-key --help)
  svc-server rotate-signing-key
                              add a new OAuth token-signing key; older keys keep verifying until their tokens expire
  svc-server COMMAND --help   what a command takes (svc-server help COMMAND says the same)

Configuration comes from the environment (PORT, HOST, DATABASE_URL, BASE_URL, ...): see README.md.
Exit codes: 0 done, 2 a usage mistake, 69 the database cannot be used, 75 the port is taken,
78 a setting is wrong, 1 anything else (a bug: the stack is printed).`;

const SERVER_COMMANDS = ['serve', 'migrate', 'bootstrap', 'create-key', 'rotate-signing-key', 'help'];

/** Exit codes of a failure the person can fix from its message alone (sysexits.h): a setting, the database, the port. */
const EXIT = { setting: 78, database: 69, port: 75 } as const;

/** A start-up failure the person can fix from its message alone: printed as one line, without a stack, with its own exit code. */
class StartupError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The configuration, or a StartupError naming the setting that is wrong (DATABASE_URL's form included). */
function configuration(): Config {
  try {
    const config = loadConfig();
    knexConfigFor(config.databaseUrl);
    const folder = sqliteFolderProblem(config.databaseUrl);
    if (folder) throw new Error(folder);
    return config;
  } catch (err) {
    throw new StartupError(EXIT.setting, `${(err as Error).message.replace(/\.?$/, '.')} Fix it in the environment and start again.`);
  }
}

/** DATABASE_URL with its password hidden, for messages. */
function shownUrl(url: string): string {
  return url.replace(/^(mysql|mariadb)(:\/\/[^:/@]*):[^@]*@/, '$1$2:***@');
}

/**
 * What is wrong with the database in one sentence, and what to do, for a failure to reach or use it
 * (a wrong password, a missing database, nothing listening, a file that cannot be opened); null for
 * anything else.
 */
function databaseProblem(err: unknown, url: string): string | null {
  const e = err as { code?: string; sqlMessage?: string; message?: string };
  const code = typeof e?.code === 'string' ? e.code : '';
  let where: { host: string; port: string; user: string; database: string } | null = null;
  if (/^(mysql|mariadb):/.test(url)) {
    const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
    where = { host: u.hostname, port: u.port || '3306', user: decodeURIComponent(u.username), database: u.pathname.replace(/^\//, '') };
  }
  const at = `The database in DATABASE_URL (${shownUrl(url)})`;
  if (where && code === 'ER_ACCESS_DENIED_ERROR')
    return `${at} refused user "${where.user}": the password is wrong or the user does not exist. Fix the user and password in DATABASE_URL, or create the user (docs/deploy.md, "The database").`;
  if (where && code === 'ER_BAD_DB_ERROR')
    return `${at} has no database "${where.database}" on ${where.host}:${where.port}. Create it (CREATE DATABASE \`${where.database}\` CHARACTER SET utf8mb4) or fix its name in DATABASE_URL (docs/deploy.md, "The database").`;
  if (where && (code === 'ER_DBACCESS_DENIED_ERROR' || code === 'ER_TABLEACCESS_DENIED_ERROR'))
    return `${at}: user "${where.user}" may not use database "${where.database}". Grant it (GRANT ALL ON \`${where.database}\`.* TO '${where.user}'@'%') or use another user (docs/deploy.md, "The database").`;
  if (where && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code))
    return `${at}: nothing answers at ${where.host}:${where.port} (${code}). Start MariaDB or MySQL there, or fix the host and port in DATABASE_URL.`;
  if (
    !where &&
    (/^SQLITE_(CANTOPEN|READONLY|NOTADB|CORRUPT|IOERR|PERM)/.test(code) || ['ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'ENOENT'].includes(code))
  )
    return `${at} cannot be opened as a SQLite file (${code}: ${e.message}). Point DATABASE_URL at a file in a folder this process can write, e.g. sqlite:./data/svc.sqlite.`;
  if (failedDependency(err) === 'database') return `${at} does not answer (${code || e.message}). Check that it is running and reachable, then start again.`;
  return null;
}

/** A port someone else holds (or this user may not open), as the message that says what to do. */
function portTaken(code: string | undefined, port: number, host: string): StartupError | null {
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return null;
  const why = code === 'EADDRINUSE' ? 'is already in use (is another svc-server running?)' : 'may not be opened by this user';
  return new StartupError(
    EXIT.port,
    `Port ${port} on ${host} ${why}: stop what holds it, or start on another port with PORT, for example PORT=${port === 8080 ? 8081 : 8080} npm start.`,
  );
}

/** Fails with the port's message before anything else is done (migrations included) when the port cannot be listened on now. */
async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  const failure = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    probe.listen(port, host, () => resolve(null));
  });
  if (!failure) return void (await new Promise<void>((resolve) => probe.close(() => resolve())));
  throw portTaken(failure.code, port, host) ?? failure;
}

/** Opens the listening socket, turning a port someone else holds into a message that says what to do. */
async function listen(service: Service, port: number, host: string): Promise<Awaited<ReturnType<typeof startHttpServer>>> {
  try {
    return await startHttpServer(service, port, host);
  } catch (err) {
    const taken = portTaken((err as NodeJS.ErrnoException).code, port, host);
    if (!taken) throw err;
    await service.close();
    throw taken;
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

async function bootstrap(url: string, file: string): Promise<number> {
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
    const { applyBootstrap } = await import('../../src/bootstrap.js');
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

async function serve(config: Config, demo: boolean): Promise<void> {
  const log = createLogger(config.logLevel);
  // A creatives folder that cannot be written stops the start with a message naming CREATIVES_DIR, not the first upload.
  await checkCreativesDir(config.creativesDir).catch((err: Error) => {
    throw new StartupError(EXIT.setting, err.message);
  });
  // A port someone holds is said before migrating (the socket is opened for real after, a moment later).
  await checkPortFree(config.port, config.host);
  // One connection pool from the migrations to serving: the service takes over the pool that migrated.
  const db = openDatabase(config.databaseUrl);
  try {
    const applied = await migrateLatest(db.knex);
    if (applied.length) log.info({ applied }, 'migrations applied');
    // The key against the tokens it must open, now rather than as a 500 on the first platform call.
    const { storedTokenProblem } = await import('../../src/brands/token-key.js');
    const tokens = await storedTokenProblem(db.knex, { live: config.platformMode === 'live', keySet: tokenEncryptionKey() !== null });
    if (tokens) throw new StartupError(EXIT.setting, `${tokens}.`);
  } catch (err) {
    await db.knex.destroy();
    throw err;
  }
  const service = await Service.open({ config, log, database: db, deliveryThread: { env: { ...process.env } } });
  // The Graph version ending within 60 days (or ended): one line, also on /readyz as a notice.
  for (const notice of service.notices()) log.warn({ component: notice.component, metaGraphUrl: config.metaGraphUrl }, notice.message);
  if (demo) {
    // The commands' own modules (the demo's, bootstrap's, create-key's) load only with their command.
    const { DEMO_OWNER_EMAIL, seedDemoIfEmpty, seedDemoReview } = await import('../../src/demo.js');
    const seed = await seedDemoIfEmpty(service.knex, service.schemas);
    if (seed) await seedDemoReview(service, seed);
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
  // With PORT=0 and no BASE_URL the public address is unknown (the default names port 0): say so rather than print it.
  const guessed = config.port === 0 && !process.env.BASE_URL;
  if (guessed)
    log.warn(
      `BASE_URL is not set and PORT=0 picks the port at start: the links this process writes (OAuth metadata, workflow links) say ${config.baseUrl}; set BASE_URL to the address clients use`,
    );
  const deliveries = !jobs ? 'off' : service.deliveryThreads ? 'thread' : 'worker';
  const deliveryThreads = service.deliveryThreads?.threads.length ?? 0;
  // The console is where a person signs in and decides: its address is part of the start-up line.
  const consoleUrl = `${guessed ? running.url : config.baseUrl.replace(/\/+$/, '')}/console`;
  log.info(
    { url: running.url, baseUrl: guessed ? null : config.baseUrl, console: consoleUrl, jobs, deliveries, deliveryThreads },
    `listening on ${running.url} (the console: ${consoleUrl})`,
  );
  // The REST surface loaded on its first request until now; once the jobs run, it is loaded ahead of one.
  running.preload().catch((err: unknown) => log.error({ err }, 'the REST surface could not be loaded'));

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
    await Promise.all([running.close(grace), service.stopJobs(grace)]);
    await service.close(grace);
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** What each command takes: its usage, its flags (util.parseArgs, strict) and how many arguments it needs. */
interface CommandSpec {
  usage: string;
  options: ParseArgsOptions;
  /** The arguments it needs, each named as its usage names it, with what it is. */
  args: Array<{ name: string; what: string }>;
}

const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    usage: `Usage: svc-server serve [--demo]

  Starts REST (/v1), MCP (/mcp), OAuth (/oauth) and the pages; runs pending migrations first.
  --demo  seeds a demo organization into an empty database and prints its keys once (npm start)

Configuration comes from the environment (PORT, HOST, DATABASE_URL, BASE_URL, ...): see README.md.`,
    options: { demo: { type: 'boolean' } },
    args: [],
  },
  migrate: {
    usage: `Usage: svc-server migrate

  Runs pending migrations on DATABASE_URL and exits.`,
    options: {},
    args: [],
  },
  bootstrap: {
    usage: `Usage: svc-server bootstrap FILE

  Runs pending migrations, applies the bootstrap JSON file FILE (- reads standard input) in one
  transaction and prints the result JSON, alone, on standard output (docs/bootstrap.md).`,
    options: {},
    args: [{ name: 'FILE', what: 'a bootstrap JSON file, or - for standard input' }],
  },
  'create-key': { usage: CREATE_KEY_USAGE, options: CREATE_KEY_OPTIONS, args: [] },
  'rotate-signing-key': {
    usage: `Usage: svc-server rotate-signing-key

  Adds a new OAuth token-signing key; older keys keep verifying until their tokens expire.`,
    options: {},
    args: [],
  },
};

const HELP_FLAGS = new Set(['--help', '-h']);

/** A usage mistake: what is wrong in one sentence, then the command's usage, on standard error; exit 2. */
function usageMistake(sentence: string, usage: string): number {
  process.stderr.write(`svc-server: ${sentence}\n\n${usage}\n`);
  return 2;
}

/**
 * The command's flags and arguments, checked before anything runs: `--help` prints the usage
 * (exit 0, nothing else done); an unknown flag or a missing argument is a usage mistake (exit 2).
 */
function parsed(command: string, argv: string[]): { help: true } | { mistake: number } | { values: Record<string, unknown>; positionals: string[] } {
  const spec = COMMANDS[command];
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((a) => HELP_FLAGS.has(a))) return { help: true };
  try {
    const { values, positionals } = parseArgs({ args: argv, options: spec.options, strict: true, allowPositionals: true });
    const missing = spec.args[positionals.length];
    if (missing) return { mistake: usageMistake(`${command} needs ${missing.name} (${missing.what}).`, spec.usage) };
    const extra = positionals.slice(spec.args.length);
    if (extra.length) return { mistake: usageMistake(`${command} does not take "${extra.join(' ')}".`, spec.usage) };
    return { values, positionals };
  } catch (err) {
    // util.parseArgs names the flag; its hint about "--" is for positionals starting with a dash.
    const sentence = (err as Error).message.split('\n')[0].replace(/\. To specify a positional argument.*$/, '');
    return { mistake: usageMistake(`${sentence.replace(/\.?$/, '.')}`, spec.usage) };
  }
}

/** The commands, each failure to use the database turned into one sentence that says what to do. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) return usageMistake('name a command.', USAGE);
  if (command === '--help' || command === '-h' || command === 'help') {
    const topic = command === 'help' ? rest[0] : undefined;
    if (topic !== undefined && !COMMANDS[topic]) return usageMistake(`Unknown command "${topic}".${didYouMean(topic, SERVER_COMMANDS)}`, USAGE);
    process.stdout.write((topic ? COMMANDS[topic].usage : USAGE) + '\n');
    return 0;
  }
  if (!COMMANDS[command]) return usageMistake(`Unknown command "${command}".${didYouMean(command, SERVER_COMMANDS)}`, USAGE);
  const args = parsed(command, rest);
  if ('help' in args) {
    process.stdout.write(COMMANDS[command].usage + '\n');
    return 0;
  }
  if ('mistake' in args) return args.mistake;
  const config = configuration();
  try {
    return await run(command, args.values, args.positionals, rest, config);
  } catch (err) {
    const problem = err instanceof StartupError ? null : databaseProblem(err, config.databaseUrl);
    if (problem) throw new StartupError(EXIT.database, problem);
    throw err;
  }
}

async function run(command: string, values: Record<string, unknown>, positionals: string[], rest: string[], config: Config): Promise<number> {
  switch (command) {
    case 'serve':
      await serve(config, values.demo === true);
      return -1;
    case 'migrate':
      await migrate(config.databaseUrl);
      return 0;
    case 'bootstrap':
      return bootstrap(config.databaseUrl, positionals[0]);
    case 'create-key': {
      const { createKeyCommand } = await import('./create-key.js');
      const db = openDatabase(config.databaseUrl);
      try {
        await migrateLatest(db.knex);
        return await createKeyCommand(db.knex, rest);
      } finally {
        await db.knex.destroy();
      }
    }
    default: {
      const db = openDatabase(config.databaseUrl);
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
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    if (err instanceof StartupError) {
      process.stderr.write(`svc-server: ${err.message}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(`svc-server: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
