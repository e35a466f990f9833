// The resolver of every kind of reference a body may name: each reads its area's store, so the
// list sits above the areas. Loaded on the first reference checked (src/wiring/references.ts).

import { findAutomation } from '../automations/store.js';
import { loadColumns } from '../board/store.js';
import { adAccountsOf } from '../brands/store.js';
import { copyPlatforms } from '../copy/store.js';
import { creativesAmong } from '../creatives/store.js';
import { launchesAmong, liveObjectsAmong, nodesAmong } from '../launches/store.js';
import type { Db, ReferenceKind, Resolver } from '../references/resolve.js';
import { templateIdsAmong } from '../structure-templates/store.js';
import { findWorkflow, reachable } from '../workflows/store.js';

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

export const resolvers: Record<ReferenceKind, Resolver> = {
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
