// What a reviewer approves is what is published (paths.md "Who may cause a publish"): the plan of the
// launch or budget step that follows a review gate, recorded when the run reaches the gate, shown on
// the review node, checked again at the approval and named to the step that then acts. The plan is
// the one launch-campaign's preview shows (launches/publish-view.ts builds both).

import crypto from 'node:crypto';
import type { ServiceContext } from '../catalogue/define.js';
import { ServiceError, type FieldIssue } from '../errors.js';
import { toUsdCents } from '../money/convert.js';
import { canonicalJson } from '../pagination/cursor.js';
import { launchPlan, planFingerprint } from '../launches/publish-view.js';
import { budgetChange, liveChangeFingerprint } from '../launches/live-change.js';
import { findNode, loadLaunch, loadNodes, type NodeRow } from '../launches/store.js';
import { topological, type WorkflowEdge, type WorkflowNode } from './definition.js';
import { needsPublishCause } from './publish-rule.js';
import type { BoundPlan } from './store.js';

/** The plan of a money step: what the review node shows (`plan`), recorded at `recordedAt`. */
export interface StepPlan {
  stepNodeId: string;
  kind: 'launch' | 'budget';
  /** The launch the step publishes (a budget step: the launch that holds the node); null when an earlier step of the run makes it. */
  launchId: string | null;
  /**
   * A launch step: the launch's planFingerprint (launch-campaign's preview). A budget step: the
   * fingerprint of its one live change (launches/live-change.ts), which edit-live-campaign binds.
   * Null when the launch is not known yet.
   */
  planFingerprint: string | null;
  counts: { campaigns: number; adSets: number; ads: number } | null;
  accounts: Array<{ accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number }>;
  countedUsdCents: number;
  recordedAt: string;
  /** Why the amounts could not be read (the launch went away, a currency has no FX rate), or null. */
  problem: string | null;
}

export type PlanContext = ServiceContext<'platforms' | 'config' | 'trackers'>;

type Graph = { nodes: WorkflowNode[]; edges: WorkflowEdge[] };

/**
 * The launch and budget steps a review gate lets go on: those the run reaches from gate `from`
 * without passing another review gate (which binds what follows it), in the run's order.
 */
function moneyStepsAfterGate(def: Graph, from: string): WorkflowNode[] {
  const order = topological(def);
  const reached = new Set<string>([from]);
  // A node is reached through an edge from a reached node that is the gate itself or not a review gate.
  const passes = (id: string) => id === from || def.nodes.find((n) => n.nodeId === id)?.kind !== 'review';
  for (const node of order) {
    if (node.nodeId !== from && def.edges.some((e) => e.to === node.nodeId && reached.has(e.from) && passes(e.from))) reached.add(node.nodeId);
  }
  return order.filter((n) => n.nodeId !== from && reached.has(n.nodeId) && needsPublishCause(n));
}

/**
 * The first launch or budget step a run reaches after node `from` (null: from the start), in the
 * run's order; null when none follows. After a gate: the one step it lets go on, else (another gate
 * comes first) the first beyond.
 */
export function moneyStepAfter(def: Graph, from: string | null): WorkflowNode | null {
  const order = topological(def);
  if (from === null) return order.find(needsPublishCause) ?? null;
  const own = moneyStepsAfterGate(def, from)[0];
  if (own) return own;
  const reached = new Set<string>([from]);
  for (const node of order) {
    if (node.nodeId !== from && def.edges.some((e) => e.to === node.nodeId && reached.has(e.from))) reached.add(node.nodeId);
  }
  return order.find((n) => n.nodeId !== from && reached.has(n.nodeId) && needsPublishCause(n)) ?? null;
}

/**
 * A review gate binds the plan of one launch or budget step (paths.md "Who may cause a publish"):
 * an issue per gate that lets more than one go on, naming them (refused at save, so no approval
 * ever lets a step publish a plan nobody was shown).
 */
export function gateIssues(def: Graph): FieldIssue[] {
  return def.nodes
    .filter((n) => n.kind === 'review')
    .flatMap((gate): FieldIssue[] => {
      const steps = moneyStepsAfterGate(def, gate.nodeId);
      if (steps.length < 2) return [];
      return [
        {
          field: `nodes[${gate.nodeId}]`,
          code: 'invalid_value',
          message:
            `lets ${steps.length} launch or budget steps go on (${steps.map((n) => n.nodeId).join(', ')}), but an approval binds the plan of one: ` +
            'put a review gate before each of them (after a condition, on each of its branches)',
        },
      ];
    });
}

/** The launch a step names, as known now: a number, the run's trigger launch, or an earlier step's; null when that step has not run. */
export function knownLaunchId(raw: unknown, triggerData: Record<string, unknown>, results: Map<string, { result: Record<string, any> | null }>): string | null {
  if (typeof raw === 'number') return String(raw);
  if (typeof raw !== 'string') return null;
  const earlier = /^\$nodes\.([A-Za-z0-9_-]+)\.launchId$/.exec(raw);
  const id = earlier
    ? (results.get(earlier[1])?.result?.answer as Record<string, unknown> | undefined)?.launchId
    : raw === '$trigger.launchId'
      ? triggerData.launchId
      : raw;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/**
 * What a run started with the plan a person confirmed (`planFingerprint`, of the launch they were
 * shown) binds: its first launch or budget step, which then publishes that plan only (a launch
 * changed since: the step stops with stale_read). Null when the run has no such step, or its launch
 * is made during the run (the run's steps as saved were confirmed, not a launch's plan).
 */
export function confirmedStep(
  def: Graph,
  triggerData: Record<string, unknown>,
  planFingerprint: string,
): { stepNodeId: string; planFingerprint: string } | null {
  const step = moneyStepAfter(def, null);
  // A budget step is confirmed as its own live change, never by a launch's plan.
  if (!step || step.kind !== 'launch' || knownLaunchId(step.settings.launchId, triggerData, new Map()) === null) return null;
  return { stepNodeId: step.nodeId, planFingerprint };
}

/**
 * The fingerprint of a workflow's steps as saved: what a run of a workflow whose money step's launch
 * is made during the run (and so has no plan yet) is confirmed by.
 */
export function definitionFingerprint(w: { id: number; version: number; nodes: WorkflowNode[]; edges: WorkflowEdge[] }): string {
  return crypto
    .createHash('sha256')
    .update(canonicalJson([w.id, w.version, w.nodes, w.edges]))
    .digest('base64url');
}

/** The plan of money step `step` of a run on brand `runBrandId` whose launch is `launchId` (null: not known yet), at `now`. */
export async function planOfStep(ctx: PlanContext, runBrandId: number, step: WorkflowNode, launchId: string | null, now: number): Promise<StepPlan> {
  const kind = step.kind as 'launch' | 'budget';
  const plan: StepPlan = {
    stepNodeId: step.nodeId,
    kind,
    launchId,
    planFingerprint: null,
    counts: null,
    accounts: [],
    countedUsdCents: 0,
    recordedAt: new Date(now).toISOString(),
    problem: null,
  };
  if (launchId === null) return { ...plan, problem: 'the launch is made by an earlier step of the run' };
  const brandId = (step.settings.brandId as number | undefined) ?? runBrandId;
  try {
    const l = await loadLaunch(ctx.db, brandId, launchId);
    const nodes = await loadNodes(ctx.db, l.id);
    plan.planFingerprint = planFingerprint(nodes);
    if (kind === 'launch') {
      const p = await launchPlan(ctx, l, nodes);
      return { ...plan, counts: p.counts, accounts: p.accounts, countedUsdCents: p.countedUsdCents };
    }
    const node = await findNode(ctx.db, l.id, String(step.settings.nodeId));
    if (!node?.accountId) return { ...plan, problem: `node ${String(step.settings.nodeId)} is not in launch ${launchId}` };
    plan.planFingerprint = budgetStepFingerprint(node, step, plan.planFingerprint);
    const account = await ctx.platforms.account(ctx.db, brandId, node.accountId);
    const amount = Number(step.settings.amount);
    const counted = toUsdCents(amount, account.currency, ctx.config.fxRates);
    return {
      ...plan,
      accounts: [{ accountId: account.accountId, currency: account.currency, amountMinorUnits: amount, countedUsdCents: counted }],
      countedUsdCents: counted,
    };
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return { ...plan, problem: err.message.slice(0, 500) };
  }
}

/**
 * The current fingerprint of the launch a recorded plan names (null: the plan names none, or the
 * launch went away). It reads the database only, so a surface that asks a person first can tell
 * whether the plan a review gate recorded is still the launch before it shows it.
 */
export async function currentFingerprint(
  ctx: Pick<ServiceContext, 'db'>,
  runBrandId: number,
  step: WorkflowNode | undefined,
  plan: Pick<StepPlan, 'launchId'>,
): Promise<string | null> {
  if (plan.launchId === null) return null;
  const brandId = (step?.settings.brandId as number | undefined) ?? runBrandId;
  try {
    const l = await loadLaunch(ctx.db, brandId, plan.launchId);
    if (step?.kind !== 'budget') return planFingerprint(await loadNodes(ctx.db, l.id));
    const nodes = await loadNodes(ctx.db, l.id);
    const node = nodes.find((n) => n.id === String(step.settings.nodeId));
    return node ? budgetStepFingerprint(node, step, planFingerprint(nodes)) : planFingerprint(nodes);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'not_found') return null;
    throw err;
  }
}

/** The fingerprint of the live change a budget step makes (its settings as steps.ts sends them to edit-live-campaign). */
function budgetStepFingerprint(node: NodeRow, step: WorkflowNode, launchPlan: string): string {
  const s = step.settings;
  const args = { level: String(s.level ?? 'CAMPAIGN'), budgetType: String(s.budgetType ?? 'daily'), amount: Number(s.amount) };
  return liveChangeFingerprint(budgetChange(node, args), launchPlan);
}

/**
 * What arming binds (paths.md "Who may cause a publish"): each launch and budget step, in the
 * definition's order, to what it would do now: its launch's plan (a budget step: its live change)
 * and the amounts. A step whose launch a run names (the trigger's, an earlier step's) binds nothing.
 */
export async function bindPlans(ctx: PlanContext, brandId: number, def: Graph): Promise<BoundPlan[]> {
  const bound: BoundPlan[] = [];
  for (const step of def.nodes.filter(needsPublishCause)) {
    const launchId = knownLaunchId(step.settings.launchId, {}, new Map());
    const plan = await planOfStep(ctx, brandId, step, launchId, ctx.now());
    bound.push({ nodeId: step.nodeId, launchId, planFingerprint: plan.planFingerprint, amounts: plan.accounts });
  }
  return bound;
}

/**
 * Arming with the fingerprints a person was shown (`named`: one per bound plan that has one, in
 * boundPlans' order): 409 stale_read with the plans now when they are not those plans, so a
 * workflow is armed only for what was shown.
 */
export function requireBound(bound: BoundPlan[], named: string[] | undefined): void {
  if (named === undefined) return;
  const now = bound.flatMap((b) => (b.planFingerprint === null ? [] : [b.planFingerprint]));
  if (now.length === named.length && now.every((f, i) => f === named[i])) return;
  throw new ServiceError(
    'stale_read',
    `planFingerprints name ${named.length} plans, but the workflow's launch and budget steps bind ${now.length} now${now.length === named.length ? ', and they changed since they were shown' : ''}: nothing was armed. ` +
      'Show the person the plans now (details.boundPlans) and arm again with their planFingerprints, in that order.',
    { reason: 'plan_changed', boundPlans: bound },
  );
}

/** The plan a run's start bound step `nodeId` to (arming, for a run its trigger started; run-workflow, at its start), or null. */
export function boundPlanOf(boundPlans: unknown, nodeId: string): BoundPlan | null {
  if (!Array.isArray(boundPlans)) return null;
  const plan = (boundPlans as BoundPlan[]).find((b) => b.nodeId === nodeId);
  return plan && typeof plan.planFingerprint === 'string' ? plan : null;
}
