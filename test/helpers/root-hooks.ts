// Mocha root hooks: after the whole run, say which storage dialects the tests exercised.

import { dialectsRun } from './databases.js';
// The tests' fetch goes through the undici this project ships: loading it installs its Agent as the
// global dispatcher, which node's own fetch then uses. The service loaded it at start-up until it
// came to load it on its first outbound request (start-up time); an in-process test of a 413 sent
// while a 100 MB upload still streams reads that answer with this Agent, and gets a reset with
// node 20's own. So the tests load it themselves, whatever the service has loaded.
import 'undici';

export const mochaHooks = {
  afterAll(): void {
    const ran = [...dialectsRun].sort();
    process.stdout.write(
      `\n  Storage dialects run: ${ran.length ? ran.join(', ') : 'none'}${process.env.TEST_MYSQL_URL ? '' : ' (set TEST_MYSQL_URL to add MySQL/MariaDB)'}\n`,
    );
  },
};
