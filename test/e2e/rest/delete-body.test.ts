// DELETE takes its input from the path: a body field is refused as unknown, and nothing is deleted.

import { expect } from 'chai';
import { exampleWorld } from '../../helpers/example-world.js';
import { startWorld, type World } from '../../helpers/world.js';

describe('DELETE with a body', () => {
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite', bootstrap: exampleWorld() });
  });
  after(async () => w?.close());

  it('refuses an unknown body field with unrecognized_key and keeps the launch; an empty body is fine', async () => {
    const key = w.key('acme', 'ci');
    const base = `/v1/brands/${w.brandId('acme', 'shoes')}/launches`;
    const created = await w.request('POST', base, { key, body: { title: 'Keep me' } });
    const refused = await w.request('DELETE', `${base}/${created.body.id}`, { key, body: { force: true } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.details).to.deep.equal([{ field: 'force', code: 'unrecognized_key', message: 'is not recognised; remove "force"' }]);
    expect((await w.request('GET', `${base}/${created.body.id}`, { key })).status).to.equal(200);
    const deleted = await w.request('DELETE', `${base}/${created.body.id}`, { key, body: {} });
    expect(deleted.body).to.deep.equal({ id: created.body.id, deleted: true });
  });
});
