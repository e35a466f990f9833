// The one rule of who may cause a publish (src/workflows/publish-rule.ts), per trigger kind: a
// workflow's `launch` or `budget` step runs only when the run's cause holds `publish`.

import { expect } from 'chai';
import { causeHoldsPublish, needsPublishCause, principalForCause } from '../../src/workflows/publish-rule.js';

const publisher = { scopes: new Set(['read', 'write', 'publish'] as const) };
const writer = { scopes: new Set(['read', 'write'] as const) };

describe('publish rule: the cause of a run, per trigger kind', () => {
  it('manual: the caller (the runner) must hold publish', () => {
    expect(causeHoldsPublish('manual', {}, publisher)).to.equal(true);
    expect(causeHoldsPublish('manual', {}, writer)).to.equal(false);
  });

  it('schedule: the saver (the runner) must hold publish', () => {
    expect(causeHoldsPublish('schedule', { scheduledFor: '2026-11-28T09:00:00.000Z' }, publisher)).to.equal(true);
    expect(causeHoldsPublish('schedule', {}, writer)).to.equal(false);
  });

  it('video_review: the saver (the runner) must hold publish', () => {
    expect(causeHoldsPublish('video_review', {}, publisher)).to.equal(true);
    expect(causeHoldsPublish('video_review', {}, writer)).to.equal(false);
  });

  it("pipeline_stage: the card's mover (recorded with the event) and the saver must both hold publish", () => {
    expect(causeHoldsPublish('pipeline_stage', { causeCanPublish: true }, publisher)).to.equal(true);
    expect(causeHoldsPublish('pipeline_stage', { causeCanPublish: false }, publisher)).to.equal(false);
    // Started before the cause was recorded: only a mover holding publish could start such a run.
    expect(causeHoldsPublish('pipeline_stage', {}, publisher), 'recorded without its cause').to.equal(true);
    expect(causeHoldsPublish('pipeline_stage', { causeCanPublish: true }, writer)).to.equal(false);
  });

  it("monitor: the automation run's cause (its caller, or the automation's last saver) and the saver must both hold publish", () => {
    expect(causeHoldsPublish('monitor', { automationId: 1, causeCanPublish: true }, publisher)).to.equal(true);
    expect(causeHoldsPublish('monitor', { automationId: 1, causeCanPublish: false }, publisher)).to.equal(false);
    expect(causeHoldsPublish('monitor', { automationId: 1 }, publisher), 'an event from before the cause was recorded').to.equal(false);
    expect(causeHoldsPublish('monitor', { automationId: 1, causeCanPublish: true }, writer)).to.equal(false);
  });

  it('an unknown trigger kind holds nothing', () => {
    expect(causeHoldsPublish('carrier_pigeon', { causeCanPublish: true }, publisher)).to.equal(false);
  });

  it('launch and budget steps need the cause; the others do not', () => {
    expect(['launch', 'budget', 'pause', 'chat', 'review', 'agent'].filter((kind) => needsPublishCause({ kind } as never))).to.deep.equal(['launch', 'budget']);
  });

  it('a run whose cause lacks publish acts without it (an agent step cannot publish either)', () => {
    expect([...principalForCause('monitor', { causeCanPublish: false }, publisher).scopes]).to.deep.equal(['read', 'write']);
    expect(principalForCause('monitor', { causeCanPublish: true }, publisher)).to.equal(publisher);
    expect(principalForCause('manual', {}, writer)).to.equal(writer);
  });
});
