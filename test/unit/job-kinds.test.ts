// Each job kind and outbox subscriber loads its module on first use (src/jobs/lazy.ts,
// lazySubscriber in src/events/subscribers.ts): what src/wiring/job-kinds.ts and subscribers.ts say
// of each must be what its module defines, and a module that differs is refused when it loads.

import { expect } from 'chai';
import { jobKinds } from '../../src/wiring/job-kinds.js';
import { eventSubscribers } from '../../src/wiring/subscribers.js';
import { lazyJobKind, type LazyJobKind } from '../../src/jobs/lazy.js';
import { lazySubscriber } from '../../src/events/subscribers.js';
import * as purgeEvents from '../../src/webhooks/purge-events.js';
import { rejectionOf } from '../helpers/assert.js';

describe('lazy job kinds and subscribers', () => {
  it('says of every job kind what its module defines (names, schedules, batches and optional functions)', async () => {
    const lazy = jobKinds.filter((k): k is LazyJobKind => 'load' in k);
    expect(lazy.length).to.equal(jobKinds.length - 1);
    for (const kind of lazy) {
      const real = await kind.load();
      expect(real.kind).to.equal(kind.kind);
      for (const member of ['schedule', 'startKeys', 'batch'] as const) expect(kind[member], `${kind.kind} ${member}`).to.deep.equal(real[member]);
      for (const f of ['runBatch', 'retry', 'onGiveUp'] as const) expect(Boolean(kind[f]), `${kind.kind} ${f}`).to.equal(Boolean(real[f]));
    }
  });

  it('says of every subscriber what its module defines', async () => {
    for (const subscriber of eventSubscribers) {
      const real = await subscriber.load();
      expect([real.name, real.types, Boolean(real.wants)]).to.deep.equal([subscriber.name, subscriber.types, Boolean(subscriber.wants)]);
    }
  });

  it('refuses a module whose kind differs from what the wiring says, and loads it again on the next try', async () => {
    let loads = 0;
    const kind = lazyJobKind({ kind: 'purge-events', schedule: '0 * * * *' }, async () => {
      loads++;
      return purgeEvents;
    });
    expect((await rejectionOf(kind.load())).message).to.match(/job kind "purge-events" is not what src\/wiring\/job-kinds.ts says/);
    await rejectionOf(kind.load());
    expect(loads).to.equal(2);
    expect(kind.retry, 'no retry said, none given').to.equal(undefined);
  });

  it('refuses a subscriber whose types differ from what the wiring says', async () => {
    const [webhooks] = eventSubscribers;
    const wrong = lazySubscriber({ name: 'webhooks', types: ['budget.changed'], wants: true }, () => webhooks.load());
    expect((await rejectionOf(wrong.load())).message).to.match(/event subscriber "webhooks" is not what src\/wiring\/subscribers.ts says/);
  });
});
