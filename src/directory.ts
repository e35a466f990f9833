// A short-lived, per-process view of each organization's brands and their primary ad accounts.
// Every brand-scoped call needs it, so it is served from memory for at most KEY_CACHE_MS (the
// same staleness bound as verified keys); a brand not found is looked up again before a 404.

import type { Knex } from 'knex';

export interface DirectoryBrand {
  id: number;
  organizationId: number;
  name: string;
  /** The first ad account attached to the brand, if any. */
  account: { accountId: string; name: string | null; active: boolean } | null;
}

interface Entry {
  brands: DirectoryBrand[];
  byId: Map<number, DirectoryBrand>;
  loadedAt: number;
}

export class Directory {
  private readonly orgs = new Map<number, Entry>();

  constructor(private readonly knex: Knex, private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  private async load(organizationId: number): Promise<Entry> {
    const rows = await this.knex('brands as b')
      .leftJoin('ad_accounts as a', (j) => {
        j.on('a.brand_id', '=', 'b.id').andOn('a.id', '=', this.knex.raw('(select min(a2.id) from ad_accounts a2 where a2.brand_id = b.id)'));
      })
      .where('b.organization_id', organizationId)
      .orderBy('b.id')
      .select('b.id', 'b.name', 'a.account_id', 'a.name as account_name', 'a.active');
    const brands = rows.map((r) => ({
      id: Number(r.id),
      organizationId,
      name: r.name,
      account: r.account_id ? { accountId: r.account_id, name: r.account_name ?? null, active: Boolean(r.active) } : null,
    }));
    const entry = { brands, byId: new Map(brands.map((b) => [b.id, b])), loadedAt: this.now() };
    if (this.orgs.size > 10_000) this.orgs.clear();
    this.orgs.set(organizationId, entry);
    return entry;
  }

  private async entry(organizationId: number): Promise<Entry> {
    const hit = this.orgs.get(organizationId);
    return hit && this.now() - hit.loadedAt < this.ttlMs ? hit : this.load(organizationId);
  }

  /** The organization's brands in id order. */
  async brands(organizationId: number): Promise<DirectoryBrand[]> {
    return (await this.entry(organizationId)).brands;
  }

  /** One brand of the organization, or null when it has none with that id (checked fresh before saying so). */
  async brand(organizationId: number, brandId: number): Promise<DirectoryBrand | null> {
    const found = (await this.entry(organizationId)).byId.get(brandId);
    return found ?? (await this.load(organizationId)).byId.get(brandId) ?? null;
  }

  /** Forgets what this process knows of an organization, after it changed a brand or ad account. */
  invalidate(organizationId: number): void {
    this.orgs.delete(organizationId);
  }
}
