// The structure-templates area's table, `structure_templates`: one row per template of a brand,
// its parts stored as JSON. The only file that queries it.

import type { Knex } from 'knex';
import { notFound, type FieldIssue } from '../errors.js';

type Db = Knex | Knex.Transaction;

export type TemplateStatus = 'DRAFT' | 'READY' | 'NEEDS_ATTENTION';
export type Scope = 'single' | 'multiple';

export interface TemplateConfig {
  campaign: Record<string, any>;
  adSets: Array<Record<string, any>>;
  ads: Array<Record<string, any>>;
}

export interface Audience {
  kind: 'targetingSet' | 'customAudience' | 'savedAudience';
  name: string;
  targeting?: Record<string, any>;
  audienceId?: string;
}

export interface TemplateSettings {
  budget?: { dailyAmount: number };
  startOffsetDays?: number;
  durationDays?: number;
  placements?: Record<string, any>;
}

export interface StructureTemplate {
  id: number;
  brandId: number;
  name: string;
  config: TemplateConfig;
  settings: TemplateSettings;
  audiences: Audience[];
  accounts: string[];
  scope: Scope;
  status: TemplateStatus;
  statusReasons: FieldIssue[];
  createdAt: number;
  updatedAt: number;
}

/** What a save writes: every part but the ids and times. */
export type TemplateParts = Omit<StructureTemplate, 'id' | 'brandId' | 'createdAt' | 'updatedAt'>;

function toTemplate(r: Record<string, any>): StructureTemplate {
  return {
    id: Number(r.id),
    brandId: Number(r.brand_id),
    name: r.name,
    config: JSON.parse(r.config),
    settings: JSON.parse(r.settings),
    audiences: JSON.parse(r.audiences),
    accounts: JSON.parse(r.accounts),
    scope: r.scope,
    status: r.status,
    statusReasons: JSON.parse(r.status_reasons),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function partsRow(t: TemplateParts) {
  return {
    name: t.name,
    config: JSON.stringify(t.config),
    settings: JSON.stringify(t.settings),
    audiences: JSON.stringify(t.audiences),
    accounts: JSON.stringify(t.accounts),
    scope: t.scope,
    status: t.status,
    status_reasons: JSON.stringify(t.statusReasons),
  };
}

/** Stores a new template of the brand; answers its id. */
export async function insertTemplate(db: Db, organizationId: number, brandId: number, t: TemplateParts, at: number): Promise<number> {
  const [id] = await db('structure_templates').insert({ organization_id: organizationId, brand_id: brandId, ...partsRow(t), created_at: at, updated_at: at });
  return Number(id);
}

/** The template `id` of `brandId` (locked when `forUpdate` inside a transaction), or 404 (also for a template of another brand). */
export async function loadTemplate(db: Db, brandId: number, templateId: number | string, forUpdate = false): Promise<StructureTemplate> {
  const id = Number(templateId);
  if (!Number.isSafeInteger(id) || id < 1) throw notFound(`Structure template ${templateId} of brand ${brandId}`);
  const q = db('structure_templates').where({ id, brand_id: brandId }).first();
  if (forUpdate && (db as Knex.Transaction).isTransaction) q.forUpdate();
  const row = await q;
  if (!row) throw notFound(`Structure template ${id} of brand ${brandId}`);
  return toTemplate(row);
}

/** The ids among `ids` of the brand's templates. */
export async function templateIdsAmong(db: Db, brandId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  return (await db('structure_templates').where({ brand_id: brandId }).whereIn('id', ids).pluck('id')).map(Number);
}

/** The brand's templates newest first (only those of `status` when given), below `beforeId` when given, at most `limit`. */
export async function templatesOf(
  db: Db,
  brandId: number,
  limit: number,
  filter: { status?: TemplateStatus; beforeId?: number } = {},
): Promise<StructureTemplate[]> {
  const query = db('structure_templates').where({ brand_id: brandId }).orderBy('id', 'desc').limit(limit);
  if (filter.status) query.where('status', filter.status);
  if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
  return (await query).map(toTemplate);
}

/** Replaces the template's parts. */
export async function updateTemplate(db: Db, id: number, t: TemplateParts, at: number): Promise<void> {
  await db('structure_templates')
    .where({ id })
    .update({ ...partsRow(t), updated_at: at });
}

/** Marks the template NEEDS_ATTENTION for `reasons`. */
export async function markNeedsAttention(db: Db, id: number, reasons: FieldIssue[], at: number): Promise<void> {
  await db('structure_templates')
    .where({ id })
    .update({ status: 'NEEDS_ATTENTION', status_reasons: JSON.stringify(reasons), updated_at: at });
}

export async function deleteTemplate(db: Db, id: number): Promise<void> {
  await db('structure_templates').where({ id }).delete();
}
