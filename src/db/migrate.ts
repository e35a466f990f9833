// Runs the knex migrations compiled from `migrations/`, in file-name (timestamp) order.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { projectPath } from '../paths.js';

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** A knex migration source over the compiled `dist/migrations` folder (ES modules). */
class CompiledMigrations implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    return fs.readdirSync(this.dir).filter((f) => /^\d{14}_.+\.js$/.test(f)).sort();
  }

  getMigrationName(file: string): string {
    return file.replace(/\.js$/, '.ts');
  }

  async getMigration(file: string): Promise<MigrationModule> {
    return import(pathToFileURL(path.join(this.dir, file)).href) as Promise<MigrationModule>;
  }
}

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({
    migrationSource: new CompiledMigrations(projectPath('dist', 'migrations')),
  });
  return applied as string[];
}
