// Mocha root hooks: after the whole run, say which storage dialects the tests exercised.

import { dialectsRun } from './databases.js';

export const mochaHooks = {
  afterAll(): void {
    const ran = [...dialectsRun].sort();
    process.stdout.write(
      `\n  Storage dialects run: ${ran.length ? ran.join(', ') : 'none'}${process.env.TEST_MYSQL_URL ? '' : ' (set TEST_MYSQL_URL to add MySQL/MariaDB)'}\n`,
    );
  },
};
