// An endpoint's window of webhook requests in flight (src/webhooks/deliver.ts EndpointWindow): it
// starts at WEBHOOK_INFLIGHT, drops to one request at a time on a failure, is halved by a slow answer,
// and grows back by one per good answer, though not on the answers to requests that were already in
// flight when the endpoint failed.

import { expect } from 'chai';
import { EndpointWindow } from '../../src/webhooks/deliver.js';

describe('EndpointWindow', () => {
  it('starts at its maximum and stays there while answers are good and quick', () => {
    const w = new EndpointWindow(8);
    for (let i = 0; i < 20; i++) w.observe(true, 40, w.send());
    expect(w.size).to.equal(8);
  });

  it('drops to one on a failure, and grows back by one per good answer to a request sent after it', () => {
    const w = new EndpointWindow(8);
    const inFlight = Array.from({ length: 8 }, () => w.send());
    w.observe(false, 30, inFlight[0]);
    expect(w.size).to.equal(1);
    // The other seven were sent before the failure: their good answers say nothing about the endpoint now.
    for (const n of inFlight.slice(1)) w.observe(true, 30, n);
    expect(w.size).to.equal(1);
    w.observe(true, 30, w.send());
    expect(w.size).to.equal(2);
    for (let i = 0; i < 10; i++) w.observe(true, 30, w.send());
    expect(w.size).to.equal(8);
  });

  it('halves on a slow answer (2 s or more), never below one', () => {
    const w = new EndpointWindow(8);
    w.observe(true, 2_500, w.send());
    expect(w.size).to.equal(4);
    for (let i = 0; i < 5; i++) w.observe(true, 3_000, w.send());
    expect(w.size).to.equal(1);
  });
});
