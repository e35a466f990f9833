// A MariaDB server of a test's own, so the test can stop and start it like an outage: its datadir
// under a temporary folder (mariadb-install-db), `mariadbd` on a free loopback port with its own
// socket, no grant tables (any user, no password). Needs /usr/sbin/mariadbd (present in CI).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';

const MARIADBD = process.env.MARIADBD ?? '/usr/sbin/mariadbd';
const INSTALL_DB = process.env.MARIADB_INSTALL_DB ?? 'mariadb-install-db';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** One private MariaDB server: `url()` for a database on it, `stop()` and `start()` for an outage. */
export class PrivateMariaDb {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private log = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  /** Installs a fresh datadir, starts the server and creates `database`. */
  static async create(database = 'svc'): Promise<PrivateMariaDb> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mariadb-'));
    const installed = spawnSync(
      INSTALL_DB,
      ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, '--user=root', '--skip-test-db', '--auth-root-authentication-method=normal'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (installed.status !== 0) throw new Error(`mariadb-install-db failed (${installed.status}):\n${installed.stdout}\n${installed.stderr}`);
    const db = new PrivateMariaDb(dir, await freePort());
    await db.start();
    const admin = knexFactory({ client: 'mysql2', connection: { host: '127.0.0.1', port: db.port, user: 'root' }, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.destroy();
    return db;
  }

  /** DATABASE_URL of `database` on this server. */
  url(database = 'svc'): string {
    return `mysql://root@127.0.0.1:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts mariadbd on the same datadir and port; resolves once it takes connections. */
  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${path.join(this.dir, 'data')}`,
        `--socket=${path.join(this.dir, 'mariadb.sock')}`,
        `--pid-file=${path.join(this.dir, 'mariadb.pid')}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        '--user=root',
        '--skip-grant-tables',
        '--skip-name-resolve',
        '--skip-log-bin',
        '--performance-schema=OFF',
        '--innodb-buffer-pool-size=32M',
        '--innodb-flush-log-at-trx-commit=2',
        '--max-connections=200',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    live.add(child);
    this.child = child;
    this.log = '';
    child.stdout!.on('data', (c) => (this.log += c));
    child.stderr!.on('data', (c) => (this.log += c));
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        live.delete(child);
        if (this.child === child) this.child = null;
        resolve();
      }),
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (!this.child) throw new Error(`mariadbd exited while starting:\n${this.log}`);
      if (/ready for connections/.test(this.log) && (await this.answers())) return;
      if (Date.now() > deadline) throw new Error(`mariadbd did not start within 60 s:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async answers(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = net.connect(this.port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  /** Stops the server abruptly (SIGKILL, as a crashed database host) or cleanly (SIGTERM); resolves once it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.child) return;
    this.child.kill(signal);
    await this.exited;
  }

  /** Stops the server and removes its datadir. */
  async remove(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
