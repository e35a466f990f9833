// Per-database settings (service_settings): values every process of one deployment must share.

import type { Knex } from 'knex';
import { isUniqueViolation } from './connection.js';

/** Reads a per-database setting, creating it once (first writer wins across processes). */
export async function ensureSetting(knex: Knex, name: string, create: () => string): Promise<string> {
  const existing = await knex('service_settings').where({ name }).first('value');
  if (existing) return existing.value;
  try {
    await knex('service_settings').insert({ name, value: create() });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  return (await knex('service_settings').where({ name }).first('value')).value;
}
