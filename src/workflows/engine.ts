// The workflow engine's decisions, without storage or a clock of its own: given a run's definition,
// its node results and the time, what happens next. A rejected review cancels the run; nodes no
// followed edge leads to are skipped; the first node that is running or waiting (or pending with
// every source done) is the next one; a waiting review past its deadline times out; nothing left
// means the run succeeded. jobs.ts carries the decision out and records it.

import { topological, type WorkflowNode } from './definition.js';
import type { NodeResult, RunDefinition, StepError } from './store.js';

export type StepDecision = {
  /** Pending nodes to mark skipped first: no followed edge leads to them. */
  skip: NodeResult[];
} & (
  | { kind: 'finish'; status: 'succeeded' | 'canceled'; error: StepError | null }
  /** A review gate whose deadline passed: the node times out (`nodeError`), then the run fails (`error`). */
  | { kind: 'time_out'; result: NodeResult; nodeError: StepError; error: StepError }
  /** A review gate waiting for a decision: look again at `until` (null: only when a decision wakes the run). */
  | { kind: 'park'; until: number | null }
  /** Run `node` (pending, or running when a crash interrupted it). */
  | { kind: 'run'; node: WorkflowNode; result: NodeResult }
);

/** What a run does next, at `now`. `results` are the run's node results (one per node). */
export function nextStep(def: Pick<RunDefinition, 'nodes' | 'edges'>, results: NodeResult[], now: number): StepDecision {
  const rejected = results.find((r) => r.status === 'rejected');
  if (rejected) return { skip: [], kind: 'finish', status: 'canceled', error: { code: 'review_rejected', message: `Review ${rejected.nodeId} was rejected.` } };

  // Statuses as they will be once the skips are recorded: a skipped source counts for the nodes after it.
  const status = new Map(results.map((r) => [r.nodeId, r.status]));
  const byNode = new Map(results.map((r) => [r.nodeId, r]));
  const kinds = new Map(def.nodes.map((n) => [n.nodeId, n.kind]));
  const skip: NodeResult[] = [];
  for (const node of topological(def)) {
    const r = byNode.get(node.nodeId);
    if (!r) continue;
    const s = status.get(node.nodeId);
    if (s === 'waiting_review') {
      if (r.deadlineAt !== null && r.deadlineAt <= now) {
        return {
          skip,
          kind: 'time_out',
          result: r,
          nodeError: { code: 'timeout', message: 'Nobody decided before the review timed out.' },
          error: { code: 'review_timed_out', message: `Review ${node.nodeId} timed out.` },
        };
      }
      return { skip, kind: 'park', until: r.deadlineAt };
    }
    if (s === 'running') return { skip, kind: 'run', node, result: r };
    if (s !== 'pending') continue;
    const incoming = def.edges.filter((e) => e.to === node.nodeId);
    if (!incoming.length) return { skip, kind: 'run', node, result: r };
    const sources = incoming.map((e) => ({ e, status: status.get(e.from), result: byNode.get(e.from)?.result ?? null, kind: kinds.get(e.from) }));
    if (sources.some((x) => x.status !== 'succeeded' && x.status !== 'skipped')) continue;
    const followed = sources.some((x) => x.status === 'succeeded' && (x.kind !== 'condition' || x.result?.value === x.e.when));
    if (followed) return { skip, kind: 'run', node, result: r };
    skip.push(r);
    status.set(node.nodeId, 'skipped');
  }
  return { skip, kind: 'finish', status: 'succeeded', error: null };
}

/** The results of the nodes that succeeded, by node id: what later steps may refer to. */
export function succeededResults(results: NodeResult[]): Map<string, { status: string; result: Record<string, any> | null }> {
  return new Map(results.filter((x) => x.status === 'succeeded').map((x) => [x.nodeId, { status: x.status, result: x.result }]));
}
