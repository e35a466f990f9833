// Ids in bodies that name another resource: the ids of one kind that a credential may reach among
// one brand's resources, with the same issue, word for word, for a missing id and a foreign one.
// The resolver of each kind reads its area's store, so src/wiring/references.ts installs them.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { isBrandOf } from '../brands/store.js';
import { validationFailed, type FieldIssue } from '../errors.js';

export type Db = Knex | Knex.Transaction;

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

/** Finds the ids of one kind of resource. */
export interface Resolver {
  /** How an issue names the kind, e.g. "structure template". */
  noun: string;
  /** The ids among `ids` that exist in the brand (and scope) of `sample` and that `principal` may reach. */
  find(db: Db, principal: Principal, sample: Reference, ids: Array<number | string>): Promise<Array<number | string>>;
}

type Resolvers = Record<ReferenceKind, Resolver>;

let load: (() => Promise<Resolvers>) | null = null;
let loading: Promise<Resolvers> | null = null;

/** Installs the loader of every kind's resolver, called on the first reference checked (src/wiring/references.ts does, when src/service.ts loads it). */
export function installResolvers(loader: () => Promise<Resolvers>): void {
  load = loader;
  loading = null;
}

function loadResolvers(): Promise<Resolvers> {
  if (!load) throw new Error('No reference resolvers are installed: import src/wiring/references.ts (src/service.ts does).');
  if (!loading) {
    loading = load();
    // A failed load (a file missing mid-deploy) is tried again by the next check.
    loading.catch(() => (loading = null));
  }
  return loading;
}

/** The issue of a reference that names nothing reachable: the same words whether it is missing or foreign. */
function referenceIssue(resolvers: Resolvers, ref: Reference): FieldIssue {
  const noun = resolvers[ref.kind].noun;
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
  if (!refs.length) return [];
  const resolvers = await loadResolvers();
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
            await resolvers[group[0].kind].find(
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
  return refs.filter((r) => !found.get(r)).map((r) => referenceIssue(resolvers, r));
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
