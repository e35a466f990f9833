// How launches and nodes are answered: a node, a launch's summary with its counts, and a launch
// with its whole tree (campaigns → ad sets → ads). Output schemas: launch, launch-node.

import type { Counts, LaunchRow, NodeRow } from './store.js';
import { childrenOf, countsOf } from './tree.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A node as answered. */
export function nodeView(n: NodeRow) {
  return {
    id: n.id,
    nodeType: n.nodeType,
    parentId: n.parentId,
    status: n.status,
    accountId: n.accountId,
    properties: n.properties,
    platformId: n.platformId,
    createdAt: iso(n.createdAt)!,
    updatedAt: iso(n.updatedAt)!,
  };
}

/** A launch as lists answer it: its fields and how many nodes of each level it has. */
export function launchSummary(l: LaunchRow, brandName: string | null, counts: Counts) {
  return {
    id: String(l.id),
    title: l.title,
    description: l.description,
    brandId: l.brandId,
    brandName,
    accountId: l.accountId,
    status: l.status,
    statusReason: l.statusReason,
    counts,
    createdAt: iso(l.createdAt)!,
    updatedAt: iso(l.updatedAt)!,
    publishedAt: iso(l.publishedAt),
  };
}

/** The launch with its whole tree: campaigns → ad sets → ads. */
export function launchTree(l: LaunchRow, brandName: string | null, nodes: NodeRow[]) {
  const kids = childrenOf(nodes);
  return {
    ...launchSummary(l, brandName, countsOf(nodes)),
    campaigns: (kids.get(null) ?? []).map((c) => ({
      node: nodeView(c),
      adSets: (kids.get(c.id) ?? []).map((s) => ({ node: nodeView(s), ads: (kids.get(s.id) ?? []).map(nodeView) })),
    })),
  };
}
