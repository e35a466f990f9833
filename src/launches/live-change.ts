// A change to something live on an ad platform (a live budget, a live status) is confirmed as that
// change, never as its launch: its fingerprint hashes exactly the change's arguments (launch, node,
// level, field, the new value), the node's state now (the value it has) and its launch's plan,
// so a fingerprint shown for one amount, node, status or level makes no other change, and a launch
// preview's fingerprint (a hash of the whole plan) never stands for one. edit-live-campaign, a live
// update-node status and a workflow's budget step bind to it; the MCP surface answers it to a client
// that cannot ask its user (paths.md "Who may cause a publish").

import crypto from 'node:crypto';
import { ServiceError } from '../errors.js';
import { canonicalJson } from '../pagination/cursor.js';
import type { NodeRow } from './store.js';
import type { Budget } from '../platforms/port.js';
import { budgetOf } from './tree.js';

/** One change of a live node: what it is now (`from`) and what it becomes (`to`). */
export interface LiveChange {
  launchId: string;
  nodeId: string;
  /** The level the change names (edit-live-campaign's level, or the node's own for a status). */
  level: string;
  field: 'budget' | 'status';
  from: Budget | string | null;
  to: Budget | string;
}

/** A budget change of `node` (edit-live-campaign's arguments, or a workflow budget step's settings). */
export function budgetChange(node: Pick<NodeRow, 'id' | 'launchId' | 'properties'>, args: { level: string; budgetType: string; amount: number }): LiveChange {
  return {
    launchId: String(node.launchId),
    nodeId: node.id,
    level: args.level,
    field: 'budget',
    from: budgetOf(node.properties),
    to: { period: args.budgetType as Budget['period'], amountMinorUnits: args.amount },
  };
}

/** A status change of `node` (a live update-node). */
export function statusChange(node: Pick<NodeRow, 'id' | 'launchId' | 'nodeType' | 'properties'>, status: string): LiveChange {
  return {
    launchId: String(node.launchId),
    nodeId: node.id,
    level: node.nodeType,
    field: 'status',
    from: typeof node.properties.status === 'string' ? node.properties.status : 'ACTIVE',
    to: status,
  };
}

/**
 * The change's fingerprint: its arguments, the node's state now (`from`) and its launch's plan now
 * (`launchPlan`, the launch's planFingerprint: any other change to the launch makes it another). What
 * publishing records (platform ids, live or draft) is in neither, so a workflow's budget step bound
 * before an earlier step publishes its launch still names the same change.
 */
export function liveChangeFingerprint(change: LiveChange, launchPlan: string): string {
  const parts = ['live-change', change.launchId, change.nodeId, change.level, change.field, change.from, change.to, launchPlan];
  return crypto.createHash('sha256').update(canonicalJson(parts)).digest('base64url');
}

/** Throws 409 stale_read (nothing is done) when `expected` is given and is not the fingerprint of this change as the node stands now. */
export function requireLiveChange(change: LiveChange, launchPlan: string, expected: string | undefined, what: string): void {
  if (expected === undefined) return;
  const now = liveChangeFingerprint(change, launchPlan);
  if (now === expected) return;
  throw new ServiceError(
    'stale_read',
    `planFingerprint ${expected.slice(0, 12)}... is not that of this change (${change.field} of ${change.level} ${change.nodeId} from ${describe(change.from)} to ${describe(change.to)}): ${what}. ` +
      'A fingerprint binds the one change it was answered for (another amount, node, status or level, a launch preview, or a node changed since, is not it). ' +
      `Show the person this change and send it again with planFingerprint ${now}.`,
    { reason: 'change_differs', planFingerprint: now, change },
  );
}

function describe(v: LiveChange['from']): string {
  if (v === null) return 'none';
  return typeof v === 'string' ? v : `${v.amountMinorUnits} minor units ${v.period}`;
}
