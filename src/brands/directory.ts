// A short-lived, per-process view of each organization's brands and their primary ad accounts.
// Every brand-scoped call needs it, so it is served from memory for at most KEY_CACHE_MS (the
// same staleness bound as verified keys); a brand not found is looked up again before a 404.

import type { Knex } from 'knex';
import { brandsWithFirstAccount, type BrandWithAccount } from './store.js';

export type DirectoryBrand = BrandWithAccount;

interface Entry {
  brands: DirectoryBrand[];
  byId: Map<number, DirectoryBrand>;
  loadedAt: number;
}

/** The per-process directory of each organization's brands (see the file's head). */
export class Directory {
  private readonly orgs = new Map<number, Entry>();

  constructor(
    private readonly knex: Knex,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private async load(organizationId: number): Promise<Entry> {
    const brands = await brandsWithFirstAccount(this.knex, organizationId);
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
