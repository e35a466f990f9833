// Ids in bodies that name another resource: one resolver per kind (ad account, creative, copy,
// structure template, launch, launch node, live platform object, automation, pipeline column,
// workflow), each finding the named ids among the resources of one brand that the credential may
// reach. A missing id and one of another brand or organization get the same issue, word for word.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { findAutomation } from '../automations/store.js';
import { loadColumns } from '../board/store.js';
import { adAccountsOf, isBrandOf } from '../brands/store.js';
import { copyPlatforms } from '../copy/store.js';
import { creativesAmong } from '../creatives/store.js';
import { validationFailed, type FieldIssue } from '../errors.js';
import { launchesAmong, liveObjectsAmong, nodesAmong } from '../launches/store.js';
import { templateIdsAmong } from '../structure-templates/store.js';
import { findWorkflow, reachable } from '../workflows/store.js';

type Db = Knex | Knex.Transaction;

export type ReferenceKind =
  'adAccount' | 'creative' | 'copy' | 'structureTemplate' | 'launch' | 'launchNode' | 'liveObject' | 'automation' | 'pipelineColumn' | 'workflow';

/** One id a body names, where it sits in the body, and the brand it must belong to. */
export interface Reference {
  kind: ReferenceKind;
  /** The field's path in the body, e.g. `nodes[n2].settings.templateId`. */
  field: string;
  id: number | string;
  brandId: number;
  /** launchNode: the launch the node must be part of. */
  launchId?: number;
  /** liveObject: the ad account and level the live object must have. */
  accountId?: string;
  level?: string;
}

interface Resolver {
  /** How an issue names the kind, e.g. "structure template". */
  noun: string;
  /** The ids among `ids` that exist in the brand (and scope) of `sample` and that `principal` may reach. */
  find(db: Db, principal: Principal, sample: Reference, ids: Array<number | string>): Promise<Array<number | string>>;
}

const numeric = (ids: Array<number | string>) => ids.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);

/** A resolver over a brand's resources keyed by integer ids, given the function that finds those among `ids`. */
const byId = (noun: string, among: (db: Db, brandId: number, ids: number[]) => Promise<number[]>): Resolver => ({
  noun,
  find: (db, _p, ref, ids) => among(db, ref.brandId, [...new Set(numeric(ids))]),
});

/** Those of `ids` for which `exists` answers true, asked one at a time (kinds a body names a few of). */
async function each(ids: number[], exists: (id: number) => Promise<boolean>): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) if (await exists(id)) out.push(id);
  return out;
}

const RESOLVERS: Record<ReferenceKind, Resolver> = {
  adAccount: {
    noun: 'ad account',
    find: async (db, _p, ref, ids) => {
      const named = new Set(ids.map(String));
      return (await adAccountsOf(db, ref.brandId)).map((a) => a.accountId).filter((id) => named.has(id));
    },
  },
  creative: byId('creative', async (db, brandId, ids) => (await creativesAmong(db, brandId, ids)).map((c) => c.id)),
  copy: byId('copy', async (db, brandId, ids) => [...(await copyPlatforms(db, brandId, ids)).keys()]),
  structureTemplate: byId('structure template', templateIdsAmong),
  launch: byId('launch', launchesAmong),
  automation: byId('automation', (db, brandId, ids) => each(ids, async (id) => Boolean(await findAutomation(db, brandId, id)))),
  pipelineColumn: byId('pipeline column', async (db, brandId, ids) => {
    const named = new Set(ids);
    return (await loadColumns(db, brandId)).map((c) => c.id).filter((id) => named.has(id));
  }),
  launchNode: {
    noun: 'node',
    find: (db, _p, ref, ids) => nodesAmong(db, ref.brandId, ref.launchId ?? 0, ids.map(String)),
  },
  liveObject: {
    noun: 'live object',
    find: (db, _p, ref, ids) => liveObjectsAmong(db, ref.brandId, ref.accountId ?? '', ref.level ?? '', ids.map(String)),
  },
  workflow: {
    noun: 'workflow',
    // A workflow reaching a brand outside the credential's limit is as unknown to it as a missing one.
    find: (db, principal, ref, ids) =>
      each([...new Set(numeric(ids))], async (id) => {
        const w = await findWorkflow(db, id);
        return Boolean(w && w.brandId === ref.brandId && w.organizationId === principal.organizationId && reachable(principal, w.reachBrandIds));
      }),
  },
};

/** The issue of a reference that names nothing reachable: the same words whether it is missing or foreign. */
export function referenceIssue(ref: Reference): FieldIssue {
  const noun = RESOLVERS[ref.kind].noun;
  const where =
    ref.kind === 'launchNode'
      ? `launch ${ref.launchId} of brand ${ref.brandId}`
      : ref.kind === 'liveObject'
        ? `${ref.accountId} (a live ${ref.level} launched by this service)`
        : `brand ${ref.brandId}`;
  return { field: ref.field, code: 'invalid_value', message: `names ${noun} ${ref.id}, which does not exist in ${where} or is out of this credential's reach` };
}

/** Issues for every reference that names no resource of its brand reachable by `principal` (one query per kind and scope). */
export async function referenceIssues(db: Db, principal: Principal, refs: Reference[]): Promise<FieldIssue[]> {
  const groups = new Map<string, Reference[]>();
  for (const r of refs) {
    const key = [r.kind, r.brandId, r.launchId ?? '', r.accountId ?? '', r.level ?? ''].join('|');
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const found = new Map<Reference, boolean>();
  for (const group of groups.values()) {
    // A brand outside the credential's limit holds nothing it may name.
    const inReach = principal.brandIds === null || principal.brandIds.has(group[0].brandId);
    const hits = inReach
      ? new Set(
          (
            await RESOLVERS[group[0].kind].find(
              db,
              principal,
              group[0],
              group.map((r) => r.id),
            )
          ).map(String),
        )
      : new Set<string>();
    for (const r of group) found.set(r, hits.has(String(r.id)));
  }
  return refs.filter((r) => !found.get(r)).map(referenceIssue);
}

/** Throws 400 validation_failed naming every reference that names nothing reachable. */
export async function requireReferences(db: Db, principal: Principal, refs: Reference[]): Promise<void> {
  const issues = await referenceIssues(db, principal, refs);
  if (issues.length) throw validationFailed(issues);
}

/**
 * A brand named in a body: it must be a brand of the credential's organization within its brand
 * limit. Read through `db`, the caller's transaction (another connection could wait on it).
 */
export async function brandIssue(db: Db, principal: Principal, field: string, brandId: number): Promise<FieldIssue | null> {
  const inLimit = principal.brandIds === null || principal.brandIds.has(brandId);
  if (inLimit && (await isBrandOf(db, principal.organizationId, brandId))) return null;
  return { field, code: 'invalid_value', message: `names brand ${brandId}, which is not a brand of this organization that this credential may reach` };
}
