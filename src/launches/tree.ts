// A launch's node tree in memory: children per node, counts per level, a level's budget, and new
// draft nodes (not yet stored). Pure functions over the rows the store answers.

import type { Budget } from '../platforms/port.js';
import type { Counts, NodeRow } from './store.js';

/** Children of each node id (null: the campaigns), in creation order. */
export function childrenOf(nodes: NodeRow[]): Map<string | null, NodeRow[]> {
  const out = new Map<string | null, NodeRow[]>();
  for (const n of nodes) {
    const list = out.get(n.parentId) ?? [];
    list.push(n);
    out.set(n.parentId, list);
  }
  return out;
}

/** How many campaigns, ad sets and ads. */
export function countsOf(nodes: Pick<NodeRow, 'nodeType'>[]): Counts {
  return {
    campaigns: nodes.filter((n) => n.nodeType === 'campaign').length,
    adSets: nodes.filter((n) => n.nodeType === 'adset').length,
    ads: nodes.filter((n) => n.nodeType === 'ad').length,
  };
}

/** A budget property `{dailyAmount}` or `{lifetimeAmount}` as the platform port's Budget. */
export function budgetOf(props: Record<string, any>): Budget | null {
  const b = props.budget;
  if (!b) return null;
  if (typeof b.dailyAmount === 'number') return { period: 'daily', amountMinorUnits: b.dailyAmount };
  if (typeof b.lifetimeAmount === 'number') return { period: 'lifetime', amountMinorUnits: b.lifetimeAmount };
  return null;
}

/** A new draft node, not yet stored; `createdAt` orders siblings. */
export function draftNode(n: Pick<NodeRow, 'id' | 'launchId' | 'parentId' | 'nodeType' | 'accountId' | 'properties'>, createdAt: number): NodeRow {
  return { ...n, name: n.properties.name ?? null, platformId: null, status: 'draft', createdAt, updatedAt: createdAt };
}
