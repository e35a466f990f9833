// A person in the loop before money moves: when the client can ask its user (elicitation), every
// money path (launch_campaign with confirm: true, edit_live_campaign, a live node's status, cards into
// publishing columns, runs and approvals before a launch or budget step) first reads a preview, then
// asks the person with the amounts per ad account and the ceiling left, and acts only on an accept,
// bound to the plan shown. Three separate steps: nothing is held (no transaction, no lock, no
// rate-limit slot) while the person decides. The question waits at most MCP_CONFIRM_TIMEOUT_S, and a
// call cancelled meanwhile acts on nothing. A client that cannot ask confirms with the plan instead:
// the call must carry the planFingerprint of the plan it was answered; without it nothing moves and
// the answer is that plan, with what to do (paths.md "Who may cause a publish").

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../../src/errors.js';
import { formatMinor, toUsdCents } from '../../src/money/convert.js';
import { needsPublishCause } from '../../src/workflows/publish-rule.js';
import { currentFingerprint, definitionFingerprint, knownLaunchId, moneyStepAfter } from '../../src/workflows/plans.js';
import { findWorkflow, workflowsOfColumn, loadExecution, type Execution } from '../../src/workflows/store.js';
import { budgetChange, liveChangeFingerprint, statusChange, type LiveChange } from '../../src/launches/live-change.js';
import { loadLaunch, loadNodes, type NodeRow } from '../../src/launches/store.js';
import { planFingerprint } from '../../src/launches/publish-view.js';
import type { FxRates } from '../../src/money/fx-rates.js';

/** How often a call waiting for the person reports progress: clients that reset their timeout on progress keep the call alive. */
export function waitTickMs(timeoutMs: number): number {
  return Math.max(100, Math.min(10_000, Math.floor(timeoutMs / 5)));
}

/**
 * The person's answer through `asking` (which itself gives up after the confirmation timeout),
 * never one that arrives after the call was cancelled (`signal`); `onWait` hears the number of
 * waits so far at once and then every waitTickMs while the question is open.
 */
export async function waitForPerson<T>(asking: () => Promise<T>, o: { timeoutMs: number; signal?: AbortSignal; onWait?: (waits: number) => void }): Promise<T> {
  const cancelled = () => new Error('the call was cancelled');
  if (o.signal?.aborted) throw cancelled();
  let waits = 0;
  const tick = o.onWait && (() => o.onWait!(++waits));
  tick?.();
  const timer = tick && setInterval(tick, waitTickMs(o.timeoutMs));
  try {
    const answer = await asking();
    if (o.signal?.aborted) throw cancelled();
    return answer;
  } finally {
    clearInterval(timer);
  }
}

/** The schema of the form the person fills in: one checkbox. */
const QUESTION_SCHEMA = {
  type: 'object',
  properties: { publish: { type: 'boolean', title: 'Go ahead', description: 'Tick to spend this money on the ad platform now.', default: false } },
  required: ['publish'],
} as const;

/** What a tool that asks first can do: run an operation as the caller, and ask the person (when the client can). */
export interface AskingCall {
  /** Runs an operation through the pipeline and answers its body (throws ServiceError as invoke does). */
  invoke(operation: string, input: Record<string, unknown>, idempotencyKey: string | undefined): Promise<Record<string, any>>;
  /** Absent when the client cannot ask its user: the call is confirmed by the plan's fingerprint it carries. */
  ask?(message: string, requestedSchema: typeof QUESTION_SCHEMA): Promise<ElicitResult>;
  /** The database, read only to tell whether a column's or a run's workflow moves money (after an operation checked the brand). */
  db: Knex;
  /** The caller's organization and whether it holds `publish` (without it nothing moves, so nobody is asked). */
  organizationId: number;
  canPublish: boolean;
  /** The FX_RATES the ceiling counts by: a live change shows what its amount counts. */
  fxRates: FxRates;
}

/**
 * Go on with the call as asked (with `input` when set: the call's arguments bound to the plan the
 * person confirmed), or stop: `body` is the answer (the tool's own shape) and `reason` what the person decided.
 */
export type Decision =
  | { proceed: true; input?: Record<string, unknown> }
  | { proceed: false; body: Record<string, unknown>; reason: string }
  /** Do the call, but as a caller without `publish`: the card is placed and nothing moves (publish.reason `declined`). */
  | { proceed: 'without-publish'; reason: string };

const PROCEED: Decision = { proceed: true };

/** An amount as every money text of the service gives it (`50.00 USD`, `14,000 JPY`); without a known currency, the minor units themselves. */
const formatMoney = (minorUnits: number, currency?: string | null): string => (currency ? formatMinor(minorUnits, currency) : `${minorUnits} minor units`);

const usd = (cents: number | null | undefined) => (cents === null || cents === undefined ? 'no limit' : formatMoney(cents, 'USD'));

/** The key of the preview step: its own, derived from the call's, so a replayed preview never stands in for a publish. */
function previewKey(key: unknown, requestId: string): string {
  return `mcp-preview-${crypto
    .createHash('sha256')
    .update(`${String(key)}\n${requestId}`)
    .digest('base64url')}`;
}

interface AccountTotal {
  accountId: string;
  currency: string | null;
  amountMinorUnits: number;
  countedUsdCents: number | null;
}

/** The preview's amount per ad account: its own list when it has one, else summed from the plan's campaigns and ad sets. */
function accountTotals(preview: Record<string, any>): AccountTotal[] {
  const listed = preview.budget?.accounts;
  if (Array.isArray(listed)) {
    return listed.map((a: Record<string, any>) => ({
      accountId: a.accountId,
      currency: a.currency ?? null,
      amountMinorUnits: a.amountMinorUnits,
      countedUsdCents: a.countedUsdCents ?? null,
    }));
  }
  const totals = new Map<string, AccountTotal>();
  for (const item of [...(preview.plan?.campaigns ?? []), ...(preview.plan?.adSets ?? [])]) {
    if (!item.budget || !item.accountId) continue;
    const t = totals.get(item.accountId) ?? { accountId: item.accountId, currency: null, amountMinorUnits: 0, countedUsdCents: null };
    t.amountMinorUnits += item.budget.amountMinorUnits;
    totals.set(item.accountId, t);
  }
  return [...totals.values()];
}

/** A campaign or ad set of the preview's plan, by node id. */
function nodeOfPlan(preview: Record<string, any> | null, nodeId: string): Record<string, any> | undefined {
  return [...(preview?.plan?.campaigns ?? []), ...(preview?.plan?.adSets ?? [])].find((n: Record<string, any>) => n.nodeId === nodeId);
}

/** The currency of a plan item's ad account, as the preview counts it (null when it names none). */
function currencyOf(preview: Record<string, any> | null, item: { accountId?: string | null } | undefined): string | null {
  return preview && item?.accountId ? (accountTotals(preview).find((a) => a.accountId === item.accountId)?.currency ?? null) : null;
}

function ceilingLine(ceiling: Record<string, any> | undefined): string {
  if (!ceiling) return '';
  return `Publish ceiling left: ${usd(ceiling.remainingMinorUnits)} (of ${usd(ceiling.limitMinorUnits)}).`;
}

/** The plan the question shows, by its fingerprint: an accept acts on that plan only. */
function planLine(preview: Record<string, any>): string {
  return typeof preview.planFingerprint === 'string' ? `Plan ${preview.planFingerprint} (if the launch changes before you answer, nothing happens).` : '';
}

/** The call's arguments bound to the plan of `preview` (what the person was shown). */
function bound(input: Record<string, unknown>, preview: Record<string, any>): Decision {
  return typeof preview.planFingerprint === 'string' ? { proceed: true, input: { ...input, planFingerprint: preview.planFingerprint } } : PROCEED;
}

/** The question before a publish: what it creates, what it spends per account, and the ceiling left. */
export function launchQuestion(preview: Record<string, any>, title?: string): string {
  const counts = preview.counts ?? {};
  const lines = [
    `Publish launch ${preview.launchId}${title ? ` "${title}"` : ''} to the ad platform: ${counts.campaigns ?? 0} campaigns, ${counts.adSets ?? 0} ad sets, ${counts.ads ?? 0} ads?`,
    'Budgets per ad account:',
    ...accountTotals(preview).map(
      (a) =>
        `- ${a.accountId}: ${formatMoney(a.amountMinorUnits, a.currency)}${a.countedUsdCents !== null && a.currency !== 'USD' ? ` (counts as ${usd(a.countedUsdCents)})` : ''}`,
    ),
    `Counts against the ceiling: ${usd(preview.budget?.countedUsdCents ?? preview.budget?.countedMinorUnits)}. ${ceilingLine(preview.budget?.ceiling)}`,
    planLine(preview),
  ];
  return lines.join('\n');
}

/** Why nothing happened, in the words the result gives. */
function reasonOf(answer: ElicitResult): string | null {
  if (answer.action === 'accept' && answer.content?.publish === true) return null;
  if (answer.action === 'accept') return 'the person did not tick the box to go ahead';
  return answer.action === 'decline' ? 'the person declined' : 'the person dismissed the question';
}

/** Asks; a question that cannot be delivered or times out is a refusal, never a yes. */
async function asked(call: AskingCall, message: string): Promise<string | null> {
  try {
    return reasonOf(await call.ask!(message, QUESTION_SCHEMA));
  } catch (err) {
    return `the question got no answer (${(err as Error).message})`;
  }
}

/**
 * On a client that cannot ask its user: the call goes on (bound to the plan, where the operation
 * binds one) only when it names the fingerprint of the plan `message` describes; otherwise it
 * stops, and its answer is `body` with that fingerprint and, in words, the plan and what to do.
 */
function confirmedByPlan(tool: string, input: Record<string, unknown>, message: string, planFingerprint: string, body: Record<string, unknown>): Decision {
  if (input.planFingerprint === planFingerprint) return { proceed: true, input: { ...input } };
  const why =
    typeof input.planFingerprint === 'string'
      ? `Nothing was done: the plan changed since planFingerprint ${input.planFingerprint} was answered.`
      : 'Nothing was done: this MCP client cannot ask its user (it declares no elicitation), so a call that moves money must carry the planFingerprint of the plan the person saw.';
  const reason = [
    why,
    'Show the person this plan:',
    message,
    `If they agree to it, call ${tool} again with the same arguments and planFingerprint: "${planFingerprint}".`,
  ].join('\n');
  return { proceed: false, reason, body: { ...body, planFingerprint } };
}

/**
 * On a client that cannot ask its user, a money call whose plan cannot be read (the preview failed:
 * the platform throttled or did not answer, or the launch does not validate) goes no further: the
 * preview's own error, saying that nothing was done and what to do (the plan is the only
 * confirmation such a client can give).
 */
function planUnreadable(tool: string, err: ServiceError): ServiceError {
  const next =
    err.code === 'unavailable' || err.code === 'rate_limited' || err.code === 'timeout'
      ? `Wait${err.retryAfter ? ` ${err.retryAfter} seconds` : ''} and call ${tool} again`
      : `Fix what it says and call ${tool} again`;
  return new ServiceError(
    err.code,
    `Nothing was done: the plan could not be read (${err.message}), and this MCP client cannot ask its user, so nothing that moves money goes ahead without a plan shown. ${next}: it then answers the plan to show the person.`,
    err.details,
    err.retryAfter,
  );
}

/** launch_campaign with confirm: true. */
async function beforePublish(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Decision> {
  // Without a key the call is refused before anything else; nobody needs asking.
  if (input.confirm !== true || typeof key !== 'string') return PROCEED;
  const preview = await call.invoke('launch-campaign', { ...input, confirm: false }, previewKey(key, requestId));
  // Published or being published: the call itself answers (a replay of its result, or the conflict).
  if (preview.status !== 'draft' && preview.status !== 'publish_failed') return PROCEED;
  if (!call.ask) {
    const decision = confirmedByPlan('launch_campaign', input, launchQuestion(preview), preview.planFingerprint, preview);
    if (decision.proceed !== false) return decision;
    const said = 'Nothing was published: call again with the planFingerprint of this preview, once the person agreed to it.';
    return { ...decision, body: { ...decision.body, warnings: [...(preview.warnings ?? []), { field: 'planFingerprint', message: said }] } };
  }
  const reason = await asked(call, launchQuestion(preview));
  if (reason === null) return bound(input, preview);
  const message = `Nothing was published: ${reason}.`;
  return { proceed: false, reason: message, body: { ...preview, warnings: [...(preview.warnings ?? []), { field: 'confirm', message }] } };
}

/** The launch's preview (launch-campaign without confirm), or null when it does not validate: then nothing of it was published. */
async function previewOfPublished(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Record<string, any> | null> {
  try {
    return await call.invoke('launch-campaign', { brandId: input.brandId, launchId: input.launchId, confirm: false }, previewKey(key, requestId));
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'validation_failed') return null;
    throw err;
  }
}

/**
 * What a client that cannot ask is answered, and an asking client is asked about, before a live
 * change: the change itself (launch, node, level, field, from, to, the amount in the account's
 * currency and as it counts against the ceiling) and its own fingerprint, which binds exactly that
 * change (launches/live-change.ts): the core refuses any other with 409 stale_read and sends nothing.
 */
interface ChangeShown {
  change: LiveChange & { accountId: string | null; currency: string | null; amountMinorUnits: number | null; countedUsdCents: number | null };
  planFingerprint: string;
}

/** What `amount` counts against the ceiling in US cents, or null when its currency has no rate (the change itself then answers 503). */
function countedOrNull(amount: number, currency: string, rates: FxRates): number | null {
  try {
    return toUsdCents(amount, currency, rates);
  } catch {
    return null;
  }
}

/** The change `change` of `node`, as shown to the person: with its amount counted (null when it carries none, or the currency has no rate). */
function shownChange(change: LiveChange, node: NodeRow & { launchPlan: string }, currency: string | null, call: AskingCall): ChangeShown {
  const amount = change.field === 'budget' && typeof change.to === 'object' ? change.to.amountMinorUnits : null;
  const counted = amount !== null && currency ? countedOrNull(amount, currency, call.fxRates) : null;
  return {
    change: { ...change, accountId: node.accountId, currency, amountMinorUnits: amount, countedUsdCents: counted },
    planFingerprint: liveChangeFingerprint(change, node.launchPlan),
  };
}

/**
 * A live change, once shown: a client that cannot ask goes on only with a planFingerprint (the core
 * makes the change when it is this change's, else answers 409 stale_read with this change's); without
 * one nothing moves and the answer is the change. An asking client is asked, and a yes binds the call
 * to the change shown.
 */
async function confirmedChange(
  tool: string,
  input: Record<string, unknown>,
  message: string,
  shown: ChangeShown,
  body: Record<string, unknown>,
  call: AskingCall,
): Promise<Decision> {
  const answer = { ...body, change: shown.change };
  if (!call.ask) {
    if (typeof input.planFingerprint === 'string') return PROCEED;
    return confirmedByPlan(tool, input, message, shown.planFingerprint, answer);
  }
  const reason = await asked(call, message);
  if (reason === null) return { proceed: true, input: { ...input, planFingerprint: shown.planFingerprint } };
  return { proceed: false, reason: `Nothing was changed: ${reason}.`, body: answer };
}

/**
 * The stored node a live change names, with its launch's plan now (what the change's fingerprint
 * binds too), once an operation checked the brand and launch (null: not there; the operation answers why).
 */
async function storedNode(call: AskingCall, input: Record<string, unknown>): Promise<(NodeRow & { launchPlan: string }) | null> {
  try {
    const l = await loadLaunch(call.db, Number(input.brandId), Number(input.launchId));
    const nodes = await loadNodes(call.db, l.id);
    const node = nodes.find((n) => n.id === String(input.nodeId));
    return node ? { ...node, launchPlan: planFingerprint(nodes) } : null;
  } catch (err) {
    if (err instanceof ServiceError) return null;
    throw err;
  }
}

/** edit_live_campaign: the change (the node's budget now and the new one), and the ceiling left. */
async function beforeBudgetEdit(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Decision> {
  if (typeof key !== 'string') return PROCEED;
  // A launch that does not validate was never published, so nothing of it is live: the edit itself answers why.
  const preview = await previewOfPublished(input, key, requestId, call);
  if (!preview) return PROCEED;
  const node = nodeOfPlan(preview, String(input.nodeId));
  const stored = await storedNode(call, input);
  // Not live, or without a budget of its own: the edit is refused with its own error, nothing to ask.
  if (!node?.platformId || !node.budget || !stored) return PROCEED;
  const currency = currencyOf(preview, node);
  const level = input.level === 'ADSET' ? 'ad set' : 'campaign';
  const shown = shownChange(budgetChange(stored, input as { level: string; budgetType: string; amount: number }), stored, currency, call);
  const counted = shown.change.countedUsdCents === null ? '' : ` (counts as ${usd(shown.change.countedUsdCents)})`;
  const message = [
    `Change the ${input.budgetType} budget of ${level} ${node.name ? `"${node.name}" ` : ''}(${node.nodeId}, launch ${String(input.launchId)}, ad account ${node.accountId}) on the ad platform?`,
    `Now: ${formatMoney(node.budget.amountMinorUnits, currency)} ${node.budget.period}. New: ${formatMoney(input.amount as number, currency)} ${input.budgetType}${counted}; the new amount counts against the ceiling.`,
    ceilingLine(preview.budget?.ceiling),
    `Change ${shown.planFingerprint} (this change only: another amount, node or level, or a budget changed before you answer, changes nothing).`,
  ].join('\n');
  const body = { nodeId: node.nodeId, level: input.level, platformId: node.platformId, budget: node.budget, ceiling: preview.budget.ceiling };
  return confirmedChange('edit_live_campaign', input, message, shown, body, call);
}

/** True for a workflow step that moves money on the ad platform (launch, budget). */
const movesMoney = <N extends { kind: string; nodeId?: string; name?: string }>(nodes: N[]) => nodes.filter((n) => needsPublishCause(n as never));

/**
 * A card entering a column: asks when the column publishes the card's launch (the same question as
 * launch_campaign) or its workflow (linked, or started by a pipeline-stage trigger naming it) has a
 * launch or budget step. A yes binds the placing to the launch's plan the question showed (the
 * column's publish, and the launch step of the workflow it starts); a no places the card without a
 * publish. A client that cannot ask confirms with that plan; when the plan cannot be read, nothing moves.
 */
async function beforeCardEntry(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall, moving: boolean): Promise<Decision> {
  if (!call.canPublish) return PROCEED;
  // The board read checks the brand and the credential's reach before anything of it is looked at.
  const board = await call.invoke('get-pipeline', { brandId: input.brandId }, undefined);
  const card = moving ? board.cards.find((c: Record<string, any>) => String(c.cardId) === String(input.cardId)) : undefined;
  if (moving && (!card || input.columnId === undefined || String(input.columnId) === String(card.columnId))) return PROCEED;
  const column = board.columns.find((c: Record<string, any>) => String(c.columnId) === String(input.columnId));
  if (!column) return PROCEED;
  const launchId = moving ? card.launchId : input.launchId;
  const brandId = Number(input.brandId);
  const workflows = (await workflowsOfColumn(call.db, call.organizationId, brandId, Number(column.columnId), column.workflowId)).filter(
    (w) => movesMoney(w.nodes).length,
  );
  let preview: Record<string, any> | null = null;
  let previewError: ServiceError | null = null;
  // The launch's plan is what is confirmed, whatever moves it (the column, or its workflow's launch step, which the placing then binds to it).
  if (column.publishes || workflows.length) {
    try {
      preview = await call.invoke('launch-campaign', { brandId: input.brandId, launchId, confirm: false }, previewKey(key, requestId));
      // Published or being published: entering the column publishes nothing.
      if (column.publishes && preview.status !== 'draft' && preview.status !== 'publish_failed') preview = null;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      previewError = err;
    }
  }
  const tool = moving ? 'move_pipeline_card' : 'create_pipeline_card';
  // Without a plan there is nothing such a client can confirm: nothing moves (paths.md "Who may cause a publish").
  if (!call.ask && previewError) throw planUnreadable(tool, previewError);
  if (!preview && !workflows.length) return PROCEED;
  const lines = [
    `${moving ? 'Move' : 'Put'} launch ${launchId} ${moving ? 'to' : 'in'} column "${column.name}" of the pipeline board${column.publishes ? ', which publishes it' : ''}.`,
    ...workflows.map(
      (w) =>
        `The column starts workflow ${w.id} "${w.name}", whose ${movesMoney(w.nodes)
          .map((n) => n.kind)
          .join(', ')} step moves money on the ad platform.`,
    ),
    ...(preview ? [launchQuestion(preview)] : previewError ? [`The launch would not publish now: ${previewError.message}`] : []),
  ];
  if (!call.ask) {
    // Already published: entering the column publishes nothing.
    if (!preview) return PROCEED;
    const notPlaced = { attempted: false, published: false, reason: 'plan_confirmation_required' };
    const body = moving
      ? { cardId: Number(input.cardId), columnId: Number(column.columnId), launchId: String(launchId), publish: notPlaced }
      : { launchId: String(launchId), columnId: Number(column.columnId), publish: notPlaced };
    return confirmedByPlan(tool, input, [...lines, ...(column.publishes ? [] : [launchQuestion(preview)])].join('\n'), preview.planFingerprint, body);
  }
  const reason = await asked(call, lines.join('\n'));
  // A yes publishes the plan the question showed, nothing else (the launch changed since: no publish, stale_read).
  if (reason === null) return preview ? bound(input, preview) : PROCEED;
  return {
    proceed: 'without-publish',
    reason: `Nothing was published: ${reason}. The card was placed without a publish (publish.reason declined) and no workflow that moves money started for it.`,
  };
}

/**
 * run_workflow of a workflow with a launch or budget step: asks first; a no starts no run. The plan
 * shown (and confirmed) is that of its first launch or budget step: the launch's preview, or the
 * workflow's steps as saved when an earlier step of the run makes the launch. A client that cannot
 * ask confirms with that plan; when the launch's plan cannot be read, no run starts.
 */
async function beforeRun(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Decision> {
  if (!call.canPublish) return PROCEED;
  const w = await call.invoke('get-workflow', { brandId: input.brandId, workflowId: input.workflowId }, undefined);
  const steps = movesMoney(w.nodes ?? []);
  if (!steps.length) return PROCEED;
  const saved = (await findWorkflow(call.db, Number(w.workflowId)))!;
  const first = moneyStepAfter(saved, null)!;
  const launchId = knownLaunchId(first.settings.launchId, input.launchId === undefined ? {} : { launchId: String(input.launchId) }, new Map());
  let preview: Record<string, any> | null = null;
  let previewError: ServiceError | null = null;
  if (launchId !== null) {
    try {
      preview = await call.invoke(
        'launch-campaign',
        { brandId: first.settings.brandId ?? input.brandId, launchId, confirm: false },
        previewKey(key, requestId),
      );
    } catch (err) {
      // Asked, the question names the steps; a client that cannot ask has no plan to confirm, so nothing starts.
      if (!(err instanceof ServiceError)) throw err;
      previewError = err;
    }
  }
  if (!call.ask && previewError) throw planUnreadable('run_workflow', previewError);
  // A budget step's amount is in its node's ad account currency, as the preview of its launch says.
  const budgetNode = first.kind === 'budget' ? nodeOfPlan(preview, String(first.settings.nodeId)) : undefined;
  const message = [
    `Run workflow ${w.workflowId} "${w.workflowName}"${input.launchId !== undefined ? ` for launch ${input.launchId}` : ''} now?`,
    `Its ${steps.map((n: Record<string, any>) => `${n.kind} step "${n.name ?? n.nodeId}"`).join(', ')} move${steps.length === 1 ? 's' : ''} money on the ad platform.`,
    ...(preview && first.kind === 'launch' ? [`Step ${first.nodeId}: ${launchQuestion(preview)}`] : []),
    ...(first.kind === 'budget'
      ? [
          `Step ${first.nodeId} sets the budget of node ${String(first.settings.nodeId)}${budgetNode?.accountId ? ` (ad account ${budgetNode.accountId})` : ''} to ${formatMoney(Number(first.settings.amount), currencyOf(preview, budgetNode))}.`,
        ]
      : []),
  ].join('\n');
  // A budget step is confirmed as its one live change (launches/live-change.ts), a launch step as its launch's plan.
  const changeFingerprint =
    first.kind === 'budget' && launchId !== null ? await currentFingerprint({ db: call.db }, Number(input.brandId), first, { launchId }) : null;
  const planFingerprint = changeFingerprint ?? (typeof preview?.planFingerprint === 'string' ? preview.planFingerprint : definitionFingerprint(saved));
  const change =
    first.kind === 'budget'
      ? {
          change: {
            stepNodeId: first.nodeId,
            launchId,
            nodeId: String(first.settings.nodeId),
            level: String(first.settings.level ?? 'CAMPAIGN'),
            field: 'budget',
            from: budgetNode?.budget ?? null,
            to: { period: String(first.settings.budgetType ?? 'daily'), amountMinorUnits: Number(first.settings.amount) },
            accountId: budgetNode?.accountId ?? null,
            currency: currencyOf(preview, budgetNode),
          },
        }
      : {};
  const notStarted = (said: string) => ({ workflowId: w.workflowId, brandId: w.brandId, status: 'not_started', started: false, message: said, ...change });
  if (!call.ask) {
    // A budget step's change named by a fingerprint: run-workflow starts it only when it is that change (else 409 stale_read with its own).
    if (changeFingerprint !== null && typeof input.planFingerprint === 'string') return PROCEED;
    return confirmedByPlan('run_workflow', input, message, planFingerprint, { ...notStarted('No run started.'), reason: 'plan_confirmation_required' });
  }
  const reason = await asked(call, message);
  // A yes runs the plan the question showed: its launch changed since starts nothing (stale_read).
  if (reason === null) return preview ? { proceed: true, input: { ...input, planFingerprint } } : PROCEED;
  const said = `Nothing was run: ${reason}. No run of workflow ${w.workflowId} started.`;
  return { proceed: false, reason: said, body: { ...notStarted(said), reason: 'declined' } };
}

/** The nodes a run reaches after `nodeId` by its edges. */
function after(def: { nodes: Array<{ nodeId: string; kind: string; name?: string }>; edges: Array<{ from: string; to: string }> }, nodeId: string) {
  const seen = new Set<string>();
  const queue = [nodeId];
  while (queue.length) {
    const at = queue.shift()!;
    for (const e of def.edges) if (e.from === at && !seen.has(e.to)) queue.push((seen.add(e.to), e.to));
  }
  return def.nodes.filter((n) => seen.has(n.nodeId));
}

/** The words of a plan a review gate recorded: the step, the launch, what it creates and spends per account. */
function planWords(plan: Record<string, any>): string[] {
  const counts = plan.counts ? ` (${plan.counts.campaigns} campaigns, ${plan.counts.adSets} ad sets, ${plan.counts.ads} ads)` : '';
  return [
    `Step ${plan.stepNodeId} (${plan.kind})${plan.launchId ? ` on launch ${plan.launchId}` : ''}${counts}, plan ${plan.planFingerprint ?? 'not known yet'}${plan.problem ? `: ${plan.problem}` : ''}.`,
    ...(plan.accounts ?? []).map(
      (a: AccountTotal) =>
        `- ${a.accountId}: ${formatMoney(a.amountMinorUnits, a.currency)}${a.currency !== 'USD' && a.countedUsdCents !== null ? ` (counts as ${usd(a.countedUsdCents)})` : ''}`,
    ),
  ];
}

/**
 * review_workflow_step approving a gate a launch or budget step follows: asks first (whoever
 * reviews, the run's money moves); a no leaves the review pending. A yes approves the plan the
 * question showed: the one the gate recorded while the launch is unchanged, else the launch as it
 * is now (the core approves a plan the approval names only while it is the launch's, paths.md "Who
 * may cause a publish"), so a launch changed at the gate is shown and approved again, never refused
 * on every try. A client that cannot ask confirms with that plan's fingerprint.
 */
async function beforeReview(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Decision> {
  if (input.decision !== 'approve') return PROCEED;
  // The read checks the brand, the workflow and the execution before its definition is looked at.
  const execution = await call.invoke(
    'get-workflow-execution',
    { brandId: input.brandId, workflowId: input.workflowId, executionId: input.executionId },
    undefined,
  );
  const run = await loadExecution(call.db, Number(input.workflowId), Number(input.executionId));
  const steps = movesMoney(after(run.definition, String(input.nodeId)));
  if (!steps.length) return PROCEED;
  const recorded = (execution.nodes as Array<Record<string, any>>).find((n) => n.nodeId === String(input.nodeId))?.plan ?? null;
  const shown = recorded?.planFingerprint ? await planNow(recorded, run, input, key, requestId, call) : null;
  const message = [
    `Approve step ${String(input.nodeId)} of run ${run.id} (workflow ${run.workflowId})?`,
    `The run then goes on to its ${steps.map((n) => `${n.kind} step "${n.name ?? n.nodeId}"`).join(', ')}, which move${steps.length === 1 ? 's' : ''} money on the ad platform.`,
    ...(shown ? shown.words : recorded ? planWords(recorded) : []),
  ].join('\n');
  // A plan whose launch is not known yet has no fingerprint: the run's steps are what is confirmed.
  const planFingerprint: string =
    shown?.planFingerprint ?? definitionFingerprint({ id: run.id, version: 0, nodes: run.definition.nodes, edges: run.definition.edges });
  if (!call.ask) {
    // A budget step's change named by a fingerprint: the approval goes on only when it is that change (else 409 stale_read with its own).
    if (recorded?.kind === 'budget' && typeof input.planFingerprint === 'string') return PROCEED;
    return confirmedByPlan('review_workflow_step', input, message, planFingerprint, execution);
  }
  const reason = await asked(call, message);
  if (reason === null) return shown ? { proceed: true, input: { ...input, planFingerprint: shown.planFingerprint } } : PROCEED;
  return { proceed: false, reason: `Nothing was approved: ${reason}. The review stays pending.`, body: execution };
}

/**
 * The plan an approval of a gate publishes now, in words, and its fingerprint: the gate's record
 * while its launch is unchanged; else the launch as it is now (a launch step: its preview-launch, which
 * needs only the read scope, so any reviewer is shown the amounts; a budget step: the step's own
 * amount, on the launch as it is now).
 */
async function planNow(
  recorded: Record<string, any>,
  run: Execution,
  input: Record<string, unknown>,
  key: unknown,
  requestId: string,
  call: AskingCall,
): Promise<{ planFingerprint: string; words: string[] }> {
  const step = run.definition.nodes.find((n) => n.nodeId === recorded.stepNodeId);
  const now = await currentFingerprint({ db: call.db }, run.brandId, step, { launchId: recorded.launchId });
  // Unchanged, or gone (the approval then answers why): the record is what is approved.
  if (now === null || now === recorded.planFingerprint) return { planFingerprint: recorded.planFingerprint, words: planWords(recorded) };
  const changed = `Launch ${recorded.launchId} changed since the gate recorded plan ${recorded.planFingerprint}; approving publishes it as it is now.`;
  if (recorded.kind === 'budget') return { planFingerprint: now, words: [changed, ...planWords({ ...recorded, planFingerprint: now })] };
  // preview-launch needs only the read scope, so a reviewer without publish is shown the amounts too.
  let preview: Record<string, any> | null = null;
  try {
    preview = await call.invoke(
      'preview-launch',
      { brandId: step?.settings.brandId ?? input.brandId, launchId: Number(recorded.launchId) },
      previewKey(key, requestId),
    );
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
  }
  // The preview read after the fingerprint: shown only when it is that same plan (else the launch changed again, and the approval says so).
  if (preview?.planFingerprint === now) return { planFingerprint: now, words: [changed, launchQuestion(preview)] };
  return {
    planFingerprint: now,
    words: [changed, `Plan ${now}: its amounts could not be read here; look at launch ${recorded.launchId} (get_launch) before approving.`],
  };
}

/**
 * update_node changing the status of a node that is live on the ad platform (a campaign set ACTIVE
 * spends again): asks first, like edit_live_campaign; a no changes nothing. Drafts are not asked about.
 */
async function beforeLiveStatus(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Decision> {
  const status = (input.properties as Record<string, unknown> | undefined)?.status;
  // Without publish the change is refused (403) before anything is sent: nobody needs asking.
  if (status === undefined || !call.canPublish) return PROCEED;
  // A draft's status is no money: the tree says so without a preview (which a draft that does not count yet could not give).
  const tree = await call.invoke('get-launch', { brandId: input.brandId, launchId: input.launchId }, undefined);
  const nodes = (tree.campaigns ?? []).flatMap((c: Record<string, any>) => [
    c.node,
    ...(c.adSets ?? []).flatMap((s: Record<string, any>) => [s.node, ...(s.ads ?? [])]),
  ]);
  if (!nodes.some((n: Record<string, any>) => n?.id === input.nodeId && n.status === 'live')) return PROCEED;
  // A launch that does not validate was never published: nothing of it is live.
  const preview = await previewOfPublished(input, key, requestId, call);
  if (!preview) return PROCEED;
  const levels = [
    ['campaign', preview.plan?.campaigns],
    ['ad set', preview.plan?.adSets],
    ['ad', preview.plan?.ads],
  ] as const;
  const found = levels.flatMap(([level, items]) => (items ?? []).map((n: Record<string, any>) => ({ level, n }))).find((x) => x.n.nodeId === input.nodeId);
  if (!found?.n.platformId) return PROCEED;
  const { level, n } = found;
  const stored = await storedNode(call, input);
  if (!stored) return PROCEED;
  const shown = shownChange(statusChange(stored, String(status)), stored, currencyOf(preview, n), call);
  const message = [
    `Set the ${level} ${n.name ? `"${n.name}" ` : ''}(${n.nodeId}, ad account ${n.accountId}) to ${String(status)} on the ad platform? It is ${String(shown.change.from)} now.`,
    status === 'ACTIVE'
      ? `It spends again${n.budget ? `: ${formatMoney(n.budget.amountMinorUnits, currencyOf(preview, n))} ${n.budget.period}` : ''}.`
      : 'It stops spending.',
    `Change ${shown.planFingerprint} (this change only: another status or node, or the node changed before you answer, changes nothing).`,
  ].join('\n');
  const body = { id: n.nodeId, status: 'live', platformId: n.platformId };
  return confirmedChange('update_node', input, message, shown, body, call);
}

/**
 * activate_workflow of a workflow with a launch or budget step: arming binds each such step to its
 * plan now (paths.md "Who may cause a publish"), so the person is shown every plan first. A client
 * that cannot ask arms only with `planFingerprints` (the core arms only while they are the plans);
 * without them nothing is armed and the answer is the plans. A no arms nothing.
 */
async function beforeActivate(input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall): Promise<Decision> {
  // Without publish the core refuses arming a money workflow (403): nobody needs asking.
  if (!call.canPublish) return PROCEED;
  const w = await call.invoke('get-workflow', { brandId: input.brandId, workflowId: input.workflowId }, undefined);
  const steps = movesMoney((w.nodes ?? []) as Array<{ kind: string; nodeId: string; name?: string; settings: Record<string, any> }>);
  if (!steps.length) return PROCEED;
  if (!call.ask && Array.isArray(input.planFingerprints)) return PROCEED;
  const plans: Array<{ nodeId: string; launchId: string | null; planFingerprint: string | null; words: string[] }> = [];
  for (const step of steps) {
    const launchId = knownLaunchId(step.settings.launchId, {}, new Map());
    if (launchId === null) {
      plans.push({
        nodeId: step.nodeId,
        launchId,
        planFingerprint: null,
        words: [`Step ${step.nodeId} (${step.kind}): its launch is named when a run starts, so nothing is bound for it.`],
      });
      continue;
    }
    const brandId = step.settings.brandId ?? input.brandId;
    let preview: Record<string, any> | null = null;
    try {
      preview = await call.invoke('preview-launch', { brandId, launchId: Number(launchId) }, previewKey(key, requestId));
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      if (!call.ask) throw planUnreadable('activate_workflow', err);
    }
    const fingerprint = await currentFingerprint({ db: call.db }, Number(brandId), step as never, { launchId });
    const budgetNode = step.kind === 'budget' ? nodeOfPlan(preview, String(step.settings.nodeId)) : undefined;
    const words =
      step.kind === 'launch'
        ? [`Step ${step.nodeId}: ${preview ? launchQuestion(preview) : `launch ${launchId} (its amounts could not be read now)`}`]
        : [
            `Step ${step.nodeId} sets the ${String(step.settings.budgetType ?? 'daily')} budget of node ${String(step.settings.nodeId)} of launch ${launchId}${budgetNode?.accountId ? ` (ad account ${budgetNode.accountId})` : ''} to ${formatMoney(Number(step.settings.amount), currencyOf(preview, budgetNode))}${budgetNode?.budget ? `; it is ${formatMoney(budgetNode.budget.amountMinorUnits, currencyOf(preview, budgetNode))} now` : ''}.`,
          ];
    plans.push({ nodeId: step.nodeId, launchId, planFingerprint: fingerprint, words: [...words, `Bound plan ${fingerprint ?? 'none'}.`] });
  }
  const fingerprints = plans.flatMap((p) => (p.planFingerprint === null ? [] : [p.planFingerprint]));
  const message = [
    `Arm workflow ${w.workflowId} "${w.workflowName}" (trigger ${w.trigger?.kind})? Runs its trigger starts then carry out these steps, each only while its plan is the one shown:`,
    ...plans.flatMap((p) => p.words),
  ].join('\n');
  const boundPlans = plans.map((p) => ({ nodeId: p.nodeId, launchId: p.launchId, planFingerprint: p.planFingerprint }));
  const notArmed = (reason: string) => ({ ...w, armed: false, reason, boundPlans });
  if (!call.ask) {
    const said = [
      'Nothing was armed: this MCP client cannot ask its user (it declares no elicitation), and arming this workflow binds money steps to their plans.',
      'Show the person these plans:',
      message,
      `If they agree to them, call activate_workflow again with the same arguments and planFingerprints: ${JSON.stringify(fingerprints)}.`,
    ].join('\n');
    return { proceed: false, reason: said, body: notArmed('plan_confirmation_required') };
  }
  const reason = await asked(call, message);
  if (reason === null) return { proceed: true, input: { ...input, planFingerprints: fingerprints } };
  const said = `Nothing was armed: ${reason}.`;
  return { proceed: false, reason: said, body: notArmed('declined') };
}

/** The operations that ask the person first when the client can ask (and are confirmed by the plan when it cannot), by operation name. */
export const ASK_FIRST: Record<string, (input: Record<string, unknown>, key: unknown, requestId: string, call: AskingCall) => Promise<Decision>> = {
  'launch-campaign': beforePublish,
  'edit-live-campaign': beforeBudgetEdit,
  'create-pipeline-card': (input, key, requestId, call) => beforeCardEntry(input, key, requestId, call, false),
  'move-pipeline-card': (input, key, requestId, call) => beforeCardEntry(input, key, requestId, call, true),
  'run-workflow': beforeRun,
  'review-workflow-step': beforeReview,
  'update-node': beforeLiveStatus,
  'activate-workflow': beforeActivate,
};
