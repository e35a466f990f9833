// The migrations runner's order: full file names, so the two migrations sharing the timestamp
// 20261124210000 always run schema first (tracker_push), then its data change (…_seal_keys).

import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrationFiles } from '../../src/db/migrate.js';
import { projectPath } from '../../src/paths.js';

describe('migration order', () => {
  it('runs the compiled migrations by full file name, the shared timestamp included', () => {
    const files = migrationFiles(projectPath('dist', 'migrations'));
    expect(files.indexOf('20261124210000_tracker_push.js')).to.be.greaterThan(-1);
    expect(files.indexOf('20261124210000_tracker_push.js')).to.equal(files.indexOf('20261124210000_tracker_push_seal_keys.js') - 1);
    const byName = [...files].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(files).to.deep.equal(byName);
  });

  it('orders by code unit whatever order the folder lists its files in, and skips what is not a migration', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-migrations-'));
    try {
      for (const f of ['20990101000000_b.js', '20990101000000_a_z.js', '20990101000000_a.js', '20990101000000_B.js', 'helper.js', '20990101000000_a.js.map']) {
        fs.writeFileSync(path.join(dir, f), '');
      }
      expect(migrationFiles(dir)).to.deep.equal(['20990101000000_B.js', '20990101000000_a.js', '20990101000000_a_z.js', '20990101000000_b.js']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
