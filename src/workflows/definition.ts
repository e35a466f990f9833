// A workflow definition: a trigger and a graph of steps. Validated as a whole on save (schema of
// each step's settings, unknown kinds, edges naming missing nodes, cycles, nodes the entry cannot
// reach), every issue naming its node as `nodes[<nodeId>].<setting>`.

import { ServiceError, validationFailed, type FieldIssue } from '../errors.js';
import type { Config } from '../config.js';

export const NODE_KINDS = ['apply_template', 'launch', 'pause', 'budget', 'review', 'chat', 'agent', 'condition'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** Steps that spend or act on live campaigns: saving, activating or running them needs `publish`. */
export const ACTING_KINDS: ReadonlySet<string> = new Set(['launch', 'pause', 'budget', 'agent']);

export type Trigger =
  | { kind: 'manual' }
  | { kind: 'schedule'; cron: string; timezone: string }
  | { kind: 'pipeline_stage'; columnId: number }
  | { kind: 'video_review' }
  | { kind: 'monitor'; automationId: number };

export interface WorkflowNode {
  nodeId: string;
  kind: NodeKind;
  name: string;
  settings: Record<string, any>;
}

export interface WorkflowEdge {
  from: string;
  to: string;
  /** Only on edges leaving a condition: followed when the condition is true (or false). */
  when?: boolean;
}

export interface Definition {
  workflowName: string;
  type: string;
  trigger: Trigger;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

/** A definition as a caller sends it (create-workflow, save-workflow): kinds and trigger fields not checked yet. */
export interface DefinitionDraft {
  workflowName: string;
  type: string;
  trigger: { kind: Trigger['kind']; cron?: string; timezone?: string; columnId?: number; automationId?: number };
  nodes: Array<{ nodeId: string; kind: string; name?: string; settings: Record<string, unknown> }>;
  edges: WorkflowEdge[];
}

export interface Validator {
  validate<T>(schemaId: string, data: unknown, prefix?: string): T;
}

export const isNodeKind = (kind: string): kind is NodeKind => (NODE_KINDS as readonly string[]).includes(kind);

const nodeField = (n: { nodeId: string }, rest: string) => `nodes[${n.nodeId}]${rest ? `.${rest}` : ''}`;

/** The node with its settings checked against its kind's schema (defaults filled in), or the issues (collected, not thrown). */
function checkedNode(v: Validator, draft: DefinitionDraft['nodes'][number], config: Config): { node: WorkflowNode | null; issues: FieldIssue[] } {
  const kind = draft.kind;
  if (!isNodeKind(kind)) {
    return {
      node: null,
      issues: [{ field: nodeField(draft, 'kind'), code: 'invalid_value', message: `"${kind}" is not a step kind; use one of ${NODE_KINDS.join(', ')}` }],
    };
  }
  const node: WorkflowNode = { nodeId: draft.nodeId, kind, name: draft.name ?? draft.nodeId, settings: draft.settings ?? {} };
  const issues: FieldIssue[] = [];
  try {
    node.settings = v.validate<Record<string, any>>(`workflow-node-settings#/$defs/${kind}`, node.settings, nodeField(node, 'settings'));
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    issues.push(...((err.details as FieldIssue[] | null) ?? []));
  }
  if (node.kind === 'chat') {
    // A step's own webhookUrl is checked against the outbound address rule by checkChatUrls (chat.ts).
    if (!node.settings?.webhookUrl && !config.chatWebhookUrl) {
      issues.push({
        field: nodeField(node, 'settings.webhookUrl'),
        code: 'invalid_type',
        message: 'is required: no CHAT_WEBHOOK_URL is configured for this service',
      });
    }
  }
  if (node.kind === 'agent' && !config.agentModelUrl) {
    issues.push({ field: nodeField(node, 'kind'), code: 'invalid_value', message: 'agent steps need a model: this service has no AGENT_MODEL_URL configured' });
  }
  return { node, issues };
}

/**
 * Checks the steps and edges of a definition as a whole (the trigger: checkTrigger) and answers the
 * steps as stored (settings with their defaults, name defaulting to the node id); throws 400
 * validation_failed listing every issue.
 */
export function checkDefinition(v: Validator, def: Pick<DefinitionDraft, 'nodes' | 'edges'>, config: Config): WorkflowNode[] {
  const issues: FieldIssue[] = [];
  const byId = new Map<string, { nodeId: string; kind: string }>();
  const nodes: WorkflowNode[] = [];
  for (const draft of def.nodes) {
    if (byId.has(draft.nodeId))
      issues.push({ field: nodeField(draft, 'nodeId'), code: 'invalid_value', message: 'is used by more than one node; node ids must be unique' });
    byId.set(draft.nodeId, draft);
    const checked = checkedNode(v, draft, config);
    issues.push(...checked.issues);
    if (checked.node) nodes.push(checked.node);
  }
  const out = new Map<string, string[]>();
  const incoming = new Map<string, number>();
  def.edges.forEach((e, i) => {
    for (const end of ['from', 'to'] as const) {
      if (!byId.has(e[end])) issues.push({ field: `edges[${i}].${end}`, code: 'invalid_value', message: `names no node ("${e[end]}")` });
    }
    if (e.from === e.to) issues.push({ field: `edges[${i}]`, code: 'invalid_value', message: `loops node ${e.from} to itself` });
    const source = byId.get(e.from);
    if (source && e.when !== undefined && source.kind !== 'condition') {
      issues.push({ field: `edges[${i}].when`, code: 'invalid_value', message: `only edges leaving a condition carry "when"; ${e.from} is a ${source.kind}` });
    }
    if (source?.kind === 'condition' && e.when === undefined) {
      issues.push({ field: `edges[${i}].when`, code: 'invalid_type', message: `is required on edges leaving condition ${e.from} (true or false)` });
    }
    out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
    incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  });
  if (issues.length) throw validationFailed(issues, `Workflow definition is invalid: ${issues.length} issues.`);

  // Cycles: a depth-first walk that meets a node still on its path.
  const state = new Map<string, 'open' | 'done'>();
  const cyclic = new Set<string>();
  const walk = (id: string) => {
    state.set(id, 'open');
    for (const next of out.get(id) ?? []) {
      if (state.get(next) === 'open') cyclic.add(next);
      else if (!state.has(next)) walk(next);
    }
    state.set(id, 'done');
  };
  for (const n of def.nodes) if (!state.has(n.nodeId)) walk(n.nodeId);
  for (const id of cyclic)
    issues.push({ field: nodeField({ nodeId: id }, ''), code: 'invalid_value', message: 'is part of a cycle; a workflow is a graph without loops' });

  // Everything must be reachable from the entry (the first node).
  if (def.nodes.length) {
    const seen = new Set<string>([def.nodes[0].nodeId]);
    const queue = [def.nodes[0].nodeId];
    while (queue.length) {
      for (const next of out.get(queue.shift()!) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    for (const n of def.nodes) {
      if (!seen.has(n.nodeId))
        issues.push({
          field: nodeField(n, ''),
          code: 'invalid_value',
          message: `is unreachable: no path of edges leads to it from the entry node ${def.nodes[0].nodeId}`,
        });
    }
    if ((incoming.get(def.nodes[0].nodeId) ?? 0) > 0 && !cyclic.size) {
      issues.push({ field: nodeField(def.nodes[0], ''), code: 'invalid_value', message: 'is the entry node (the first one) and must have no incoming edge' });
    }
  }
  if (issues.length) throw validationFailed(issues, `Workflow definition is invalid: ${issues.length} issues.`);
  return nodes;
}

/** Every brand the definition reaches: the workflow's own, and any step's `brandId` or agent `brandIds`. */
export function reachOf(brandId: number, def: Pick<Definition, 'nodes'>): number[] {
  const brands = new Set<number>([brandId]);
  for (const n of def.nodes) {
    if (typeof n.settings?.brandId === 'number') brands.add(n.settings.brandId);
    if (Array.isArray(n.settings?.brandIds)) for (const b of n.settings.brandIds) brands.add(b);
  }
  return [...brands].sort((a, b) => a - b);
}

/** True when a step spends or acts on live campaigns. */
export function acts(def: { nodes: Array<Pick<WorkflowNode, 'kind'>> }): boolean {
  return def.nodes.some((n) => ACTING_KINDS.has(n.kind));
}

/** Nodes in an order where every node comes after all nodes with an edge into it. */
export function topological(def: Pick<Definition, 'nodes' | 'edges'>): WorkflowNode[] {
  const indegree = new Map(def.nodes.map((n) => [n.nodeId, 0]));
  for (const e of def.edges) indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  const byId = new Map(def.nodes.map((n) => [n.nodeId, n]));
  const ready = def.nodes.filter((n) => indegree.get(n.nodeId) === 0).map((n) => n.nodeId);
  const order: WorkflowNode[] = [];
  while (ready.length) {
    const id = ready.shift()!;
    order.push(byId.get(id)!);
    for (const e of def.edges.filter((x) => x.from === id)) {
      indegree.set(e.to, indegree.get(e.to)! - 1);
      if (indegree.get(e.to) === 0) ready.push(e.to);
    }
  }
  return order;
}
