// The workflow engine's decisions on a fixed clock, without a database: which node a run takes next
// (edges, conditions, skipped branches, a step resumed after a crash), review gates (waiting,
// approved, rejected, timed out), and which failures of a step are tried again.

import { expect } from 'chai';
import { ServiceError } from '../../src/errors.js';
import type { WorkflowEdge, WorkflowNode } from '../../src/workflows/definition.js';
import { nextStep, succeededResults, type StepDecision } from '../../src/workflows/engine.js';
import { chatOutcome, conditionOutcome, refusalOutcome, reviewOutcome, retriesLeft } from '../../src/workflows/steps.js';
import type { NodeResult, NodeStatus } from '../../src/workflows/store.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const HOUR = 3_600_000;

const node = (nodeId: string, kind: WorkflowNode['kind'] = 'chat'): WorkflowNode => ({ nodeId, kind, name: nodeId, settings: {} });
const chain = (...ids: string[]): WorkflowEdge[] => ids.slice(1).map((to, i) => ({ from: ids[i], to }));

/** One result row per node, pending unless `states` says otherwise. */
function results(nodes: WorkflowNode[], states: Record<string, Partial<NodeResult> & { status: NodeStatus }> = {}): NodeResult[] {
  const pending = { status: 'pending' as const, result: null, error: null, startedAt: null, finishedAt: null, deadlineAt: null };
  return nodes.map((n, i) => ({ ...pending, ...states[n.nodeId], id: i + 1, executionId: 7, nodeId: n.nodeId }));
}

/** The decision in a comparable form: its kind, the node it names and the nodes it skips. */
const summary = (d: StepDecision) => ({
  kind: d.kind,
  node: d.kind === 'run' ? d.node.nodeId : d.kind === 'time_out' ? d.result.nodeId : null,
  skip: d.skip.map((r) => r.nodeId),
});

describe('workflow engine: the next step', () => {
  const nodes = [node('a'), node('b'), node('c')];
  const edges = chain('a', 'b', 'c');

  it('runs the entry node first, then each node once every node before it succeeded', () => {
    expect(summary(nextStep({ nodes, edges }, results(nodes), NOW))).to.deep.equal({ kind: 'run', node: 'a', skip: [] });
    const afterA = results(nodes, { a: { status: 'succeeded', result: {} } });
    expect(summary(nextStep({ nodes, edges }, afterA, NOW))).to.deep.equal({ kind: 'run', node: 'b', skip: [] });
    const afterB = results(nodes, { a: { status: 'succeeded' }, b: { status: 'succeeded' } });
    expect(summary(nextStep({ nodes, edges }, afterB, NOW))).to.deep.equal({ kind: 'run', node: 'c', skip: [] });
  });

  it('ends the run succeeded once no node is left', () => {
    const done = results(nodes, { a: { status: 'succeeded' }, b: { status: 'succeeded' }, c: { status: 'succeeded' } });
    const d = nextStep({ nodes, edges }, done, NOW);
    expect(d).to.deep.include({ kind: 'finish', status: 'succeeded', error: null, skip: [] });
  });

  it('resumes the node that was running when the process stopped, before any other', () => {
    const crashed = results(nodes, { a: { status: 'succeeded' }, b: { status: 'running', startedAt: NOW - 1000 } });
    expect(summary(nextStep({ nodes, edges }, crashed, NOW))).to.deep.equal({ kind: 'run', node: 'b', skip: [] });
  });

  it('waits for every source of a join: a node with two incoming edges runs after both succeeded', () => {
    const diamond = [node('start'), node('left'), node('right'), node('join')];
    const e: WorkflowEdge[] = [
      { from: 'start', to: 'left' },
      { from: 'start', to: 'right' },
      { from: 'left', to: 'join' },
      { from: 'right', to: 'join' },
    ];
    const leftDone = results(diamond, { start: { status: 'succeeded' }, left: { status: 'succeeded' } });
    expect(summary(nextStep({ nodes: diamond, edges: e }, leftDone, NOW))).to.deep.equal({ kind: 'run', node: 'right', skip: [] });
    const both = results(diamond, { start: { status: 'succeeded' }, left: { status: 'succeeded' }, right: { status: 'succeeded' } });
    expect(summary(nextStep({ nodes: diamond, edges: e }, both, NOW))).to.deep.equal({ kind: 'run', node: 'join', skip: [] });
  });

  describe('a condition', () => {
    // check → yes (when true) → afterYes; check → no (when false) → afterNo; both branches → end.
    const graph = [node('check', 'condition'), node('yes'), node('no'), node('afterYes'), node('afterNo'), node('end')];
    const e: WorkflowEdge[] = [
      { from: 'check', to: 'yes', when: true },
      { from: 'check', to: 'no', when: false },
      { from: 'yes', to: 'afterYes' },
      { from: 'no', to: 'afterNo' },
      { from: 'afterYes', to: 'end' },
      { from: 'afterNo', to: 'end' },
    ];

    it('follows the edge whose `when` matches its value and skips the other branch to where they meet', () => {
      const check = { status: 'succeeded' as const, result: { value: true, tested: 'ACTIVE' } };
      expect(summary(nextStep({ nodes: graph, edges: e }, results(graph, { check }), NOW))).to.deep.equal({ kind: 'run', node: 'yes', skip: [] });
      const yes = { status: 'succeeded' as const };
      expect(summary(nextStep({ nodes: graph, edges: e }, results(graph, { check, yes }), NOW))).to.deep.equal({
        kind: 'run',
        node: 'afterYes',
        skip: ['no'],
      });
      const branch = results(graph, { check, yes, no: { status: 'skipped' }, afterYes: { status: 'succeeded' } });
      expect(summary(nextStep({ nodes: graph, edges: e }, branch, NOW))).to.deep.equal({ kind: 'run', node: 'end', skip: ['afterNo'] });
    });

    it('runs a node where the followed and the skipped branches meet', () => {
      const met = results(graph, {
        check: { status: 'succeeded', result: { value: false } },
        yes: { status: 'skipped' },
        afterYes: { status: 'skipped' },
        no: { status: 'succeeded' },
        afterNo: { status: 'succeeded' },
      });
      expect(summary(nextStep({ nodes: graph, edges: e }, met, NOW))).to.deep.equal({ kind: 'run', node: 'end', skip: [] });
    });

    it('skips everything after it when neither edge matches its value, and the run succeeds', () => {
      const neither = results(graph, { check: { status: 'succeeded', result: { value: 'unexpected' } } });
      const d = nextStep({ nodes: graph, edges: e }, neither, NOW);
      expect(summary(d)).to.deep.equal({ kind: 'finish', node: null, skip: ['yes', 'no', 'afterYes', 'afterNo', 'end'] });
      expect(d).to.deep.include({ status: 'succeeded' });
    });

    it('tests the value at its path in the result of its source step', () => {
      const earlier = succeededResults(results(graph, { yes: { status: 'succeeded', result: { answer: { status: 'ACTIVE' } } } }));
      expect(conditionOutcome({ source: 'yes', path: 'answer.status', equals: 'ACTIVE' }, earlier)).to.deep.equal({
        status: 'succeeded',
        result: { value: true, tested: 'ACTIVE' },
      });
      expect(conditionOutcome({ source: 'yes', path: 'answer.status', equals: 'PAUSED' }, earlier)).to.deep.equal({
        status: 'succeeded',
        result: { value: false, tested: 'ACTIVE' },
      });
      expect(conditionOutcome({ source: 'no', path: 'answer.status', equals: 'ACTIVE' }, earlier)).to.deep.equal({
        status: 'succeeded',
        result: { value: false, tested: null },
      });
    });
  });
});

describe('workflow engine: review gates', () => {
  const nodes = [node('build'), node('review', 'review'), node('publish', 'launch')];
  const edges = chain('build', 'review', 'publish');

  it('waits from now until timeoutHours from now, or for ever without one', () => {
    expect(reviewOutcome({ timeoutHours: 2 }, NOW)).to.deep.equal({ status: 'waiting_review', deadline: NOW + 2 * HOUR });
    expect(reviewOutcome({ timeoutHours: 0.5 }, NOW)).to.deep.equal({ status: 'waiting_review', deadline: NOW + HOUR / 2 });
    expect(reviewOutcome({}, NOW)).to.deep.equal({ status: 'waiting_review', deadline: null });
  });

  it('parks the run until the deadline while the gate waits, or until a decision wakes it when it has none', () => {
    const waiting = results(nodes, { build: { status: 'succeeded' }, review: { status: 'waiting_review', deadlineAt: NOW + HOUR } });
    expect(nextStep({ nodes, edges }, waiting, NOW)).to.deep.include({ kind: 'park', until: NOW + HOUR });
    expect(nextStep({ nodes, edges }, waiting, NOW + HOUR - 1)).to.deep.include({ kind: 'park', until: NOW + HOUR });
    const forever = results(nodes, { build: { status: 'succeeded' }, review: { status: 'waiting_review', deadlineAt: null } });
    expect(nextStep({ nodes, edges }, forever, NOW + 1000 * HOUR)).to.deep.include({ kind: 'park', until: null });
  });

  it('times the gate out at its deadline: the node times out and the run fails', () => {
    const waiting = results(nodes, { build: { status: 'succeeded' }, review: { status: 'waiting_review', deadlineAt: NOW } });
    const d = nextStep({ nodes, edges }, waiting, NOW);
    expect(summary(d)).to.deep.equal({ kind: 'time_out', node: 'review', skip: [] });
    expect(d).to.deep.include({
      nodeError: { code: 'timeout', message: 'Nobody decided before the review timed out.' },
      error: { code: 'review_timed_out', message: 'Review review timed out.' },
    });
  });

  it('goes on after an approval (the gate succeeded)', () => {
    const approved = results(nodes, { build: { status: 'succeeded' }, review: { status: 'succeeded', result: { decision: 'approve' } } });
    expect(summary(nextStep({ nodes, edges }, approved, NOW))).to.deep.equal({ kind: 'run', node: 'publish', skip: [] });
  });

  it('cancels the run after a rejection, running nothing more', () => {
    const rejected = results(nodes, { build: { status: 'succeeded' }, review: { status: 'rejected', result: { decision: 'reject' } } });
    expect(nextStep({ nodes, edges }, rejected, NOW)).to.deep.equal({
      skip: [],
      kind: 'finish',
      status: 'canceled',
      error: { code: 'review_rejected', message: 'Review review was rejected.' },
    });
  });
});

describe('workflow engine: retries of a step', () => {
  it('tries a step three times in all: again after its first and second failures, not after its third', () => {
    expect([0, 1, 2, 3].map(retriesLeft)).to.deep.equal([true, true, false, false]);
  });

  it('tries again when the operation it called was busy or unavailable, with the same step, while tries are left', () => {
    for (const code of ['rate_limited', 'unavailable', 'timeout', 'internal_error', 'idempotency_conflict'] as const) {
      const err = new ServiceError(code, 'busy');
      expect(refusalOutcome(err, 0), code).to.deep.equal({ status: 'retry', reason: `${code}: busy` });
      expect(refusalOutcome(err, 2), code).to.deep.equal({ status: 'failed', error: { code, message: 'busy', details: undefined } });
    }
  });

  it('fails at once when the operation refused the step for good (scope, ceiling, validation)', () => {
    const err = new ServiceError('spend_ceiling_exceeded', 'over the ceiling', { ceilingCents: 100 });
    expect(refusalOutcome(err, 0)).to.deep.equal({
      status: 'failed',
      error: { code: 'spend_ceiling_exceeded', message: 'over the ceiling', details: { ceilingCents: 100 } },
    });
  });

  it('a chat step succeeds on a 2xx, tries again when the webhook did not answer or answered 5xx or 429, and fails on any other answer or once tries are spent', () => {
    const sent = (statusCode: number | null, refused = false) => ({
      statusCode,
      error: statusCode === null ? 'connect ECONNREFUSED' : null,
      durationMs: 12,
      refused,
    });
    expect(chatOutcome(sent(204), 'hi', 0)).to.deep.equal({ status: 'succeeded', result: { statusCode: 204, text: 'hi', durationMs: 12 } });
    expect(chatOutcome(sent(503), 'hi', 0)).to.deep.equal({ status: 'retry', reason: 'chat webhook answered 503' });
    expect(chatOutcome(sent(429), 'hi', 1)).to.deep.equal({ status: 'retry', reason: 'chat webhook answered 429' });
    expect(chatOutcome(sent(null), 'hi', 0)).to.deep.equal({ status: 'retry', reason: 'connect ECONNREFUSED' });
    expect(chatOutcome(sent(503), 'hi', 2)).to.deep.equal({
      status: 'failed',
      error: { code: 'unavailable', message: 'The chat webhook did not take the message: HTTP 503.' },
      result: { statusCode: 503 },
    });
    expect(chatOutcome(sent(404), 'hi', 0)).to.deep.include({ status: 'failed' });
    // A URL the address rule refused was never called: trying again would not help.
    expect(chatOutcome(sent(null, true), 'hi', 0)).to.deep.include({ status: 'failed' });
  });
});
