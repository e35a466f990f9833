// What a workflow definition names: the trigger's column or automation (of the workflow's own
// brand), and each step's brand, template, launch and node. Checked when a workflow is saved, and
// again for each step when it runs, since things change in between.

import type { BaseContext } from '../catalogue/define.js';
import type { FieldIssue } from '../errors.js';
import { brandIssue, referenceIssues, type Reference } from '../references/resolve.js';
import type { Definition, WorkflowNode } from './definition.js';

const field = (node: WorkflowNode, setting: string) => `nodes[${node.nodeId}].settings.${setting}`;

/** A step's launch id when it is a literal id, or null when it is filled in at run time ($trigger..., $nodes...). */
export function literalLaunchId(raw: unknown): number | null {
  return typeof raw === 'number' ? raw : null;
}

/** The brand a step acts on: its own `brandId`, or the workflow's. */
export function stepBrandOf(node: WorkflowNode, workflowBrandId: number): number {
  return typeof node.settings?.brandId === 'number' ? node.settings.brandId : workflowBrandId;
}

/** The references of one step, given the launch it acts on (null when not known yet). */
export function stepReferences(node: WorkflowNode, brandId: number, launchId: number | null): { launch: Reference[]; inLaunch: Reference[] } {
  const s = node.settings ?? {};
  const launch: Reference[] = [];
  const inLaunch: Reference[] = [];
  if (node.kind === 'apply_template') launch.push({ kind: 'structureTemplate', field: field(node, 'templateId'), id: s.templateId, brandId });
  if ((node.kind === 'launch' || node.kind === 'pause' || node.kind === 'budget') && launchId !== null) {
    launch.push({ kind: 'launch', field: field(node, 'launchId'), id: launchId, brandId });
    if (node.kind !== 'launch') inLaunch.push({ kind: 'launchNode', field: field(node, 'nodeId'), id: s.nodeId, brandId, launchId });
  }
  return { launch, inLaunch };
}

/** Issues of a step's references: its launch (or template) first, then the node within a launch that exists. */
export async function stepIssues(
  ctx: Pick<BaseContext, 'db' | 'principal'>,
  node: WorkflowNode,
  brandId: number,
  launchId: number | null,
): Promise<FieldIssue[]> {
  const refs = stepReferences(node, brandId, launchId);
  const issues = await referenceIssues(ctx.db, ctx.principal, refs.launch);
  if (issues.length || !refs.inLaunch.length) return issues;
  return referenceIssues(ctx.db, ctx.principal, refs.inLaunch);
}

/**
 * Every reference of a definition saved on `brandId` that names nothing this credential may reach:
 * brands outside the organization or the credential's limit, and resources missing or foreign.
 */
export async function definitionIssues(ctx: Pick<BaseContext, 'db' | 'principal'>, brandId: number, def: Definition): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const t = def.trigger;
  const triggerRefs: Reference[] = [];
  // A trigger fires on its own brand's column or automation only: a run never starts across brands.
  if (t.kind === 'pipeline_stage') triggerRefs.push({ kind: 'pipelineColumn', field: 'trigger.columnId', id: t.columnId, brandId });
  if (t.kind === 'monitor') triggerRefs.push({ kind: 'automation', field: 'trigger.automationId', id: t.automationId, brandId });
  issues.push(...(await referenceIssues(ctx.db, ctx.principal, triggerRefs)));

  const kinds = new Map(def.nodes.map((n) => [n.nodeId, n.kind]));
  for (const node of def.nodes) {
    const s = node.settings ?? {};
    if (typeof s.brandId === 'number') {
      const bad = await brandIssue(ctx.db, ctx.principal, field(node, 'brandId'), s.brandId);
      if (bad) {
        issues.push(bad);
        continue;
      }
    }
    if (node.kind === 'agent' && Array.isArray(s.brandIds)) {
      for (const [i, b] of (s.brandIds as number[]).entries()) {
        const bad = await brandIssue(ctx.db, ctx.principal, field(node, `brandIds[${i}]`), b);
        if (bad) issues.push(bad);
      }
    }
    const earlier = typeof s.launchId === 'string' ? /^\$nodes\.([A-Za-z0-9_-]+)\.launchId$/.exec(s.launchId) : null;
    if (earlier && kinds.get(earlier[1]) !== 'apply_template') {
      issues.push({
        field: field(node, 'launchId'),
        code: 'invalid_value',
        message: `"${s.launchId}" must name an apply_template step of this workflow; ${earlier[1]} is ${kinds.has(earlier[1]) ? `a ${kinds.get(earlier[1])} step` : 'no step'}`,
      });
    }
    issues.push(...(await stepIssues(ctx, node, stepBrandOf(node, brandId), literalLaunchId(s.launchId))));
  }
  return issues;
}
