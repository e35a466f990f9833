// An email is one identity (src/account/email.ts): compared after NFKC and lower-case folding, byte
// for byte. MariaDB's default collations fold accents and case, so `olivé@…` found `olive@…`: the
// users' email column takes a binary collation there (SQLite already compares bytes), and stored
// emails are folded as new ones are (a row whose folded form another row holds keeps its own).
//
// The sign-in limit moves from one row per failure (`login_failures`, counted after the password
// check, so attempts sent at once each saw a count below the limit) to one counter per subject and
// 15-minute window (`sign_in_attempts`), incremented in one statement before the check.

import type { Knex } from 'knex';

const fold = (email: string) => email.trim().normalize('NFKC').toLowerCase().normalize('NFKC');

export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  if (mysql) await knex.raw('ALTER TABLE users MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
  const users: Array<{ id: number; email: string }> = await knex('users').select('id', 'email');
  const taken = new Set(users.map((u) => u.email));
  for (const u of users) {
    const folded = fold(u.email);
    if (folded === u.email || taken.has(folded)) continue;
    await knex('users').where({ id: u.id }).update({ email: folded });
    taken.add(folded);
  }
  await knex.schema.dropTableIfExists('login_failures');
  await knex.schema.createTable('sign_in_attempts', (t) => {
    t.string('subject', 300).primary();
    t.bigInteger('window_start').notNullable();
    t.integer('attempts').notNullable();
  });
  if (mysql) await knex.raw('ALTER TABLE sign_in_attempts MODIFY subject VARCHAR(300) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sign_in_attempts');
  await knex.schema.createTable('login_failures', (t) => {
    t.bigIncrements('id').primary();
    t.string('subject', 300).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['subject', 'at']);
  });
  if (knex.client.config.client === 'mysql2') await knex.raw('ALTER TABLE users MODIFY email VARCHAR(254) NOT NULL');
}
