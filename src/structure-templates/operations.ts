// The structure-templates area's operations: reusable launch structures of a brand (create, list,
// read, edit, delete) and applying one, which creates an ordinary draft launch with one campaign
// tree per ad account.

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError, validationFailed } from '../errors.js';
import { createDraftLaunch } from '../launches/create.js';
import { insertNodes } from '../launches/store.js';
import { countsOf } from '../launches/tree.js';
import { buildTree, templateIssues } from './apply.js';
import { deleteTemplate, insertTemplate, loadTemplate, templatesOf, updateTemplate, type StructureTemplate, type TemplateStatus } from './store.js';
import { accountIdsOf, checkTemplate, flagMissing, missingParts, templateView } from './template.js';

const read = { readOnly: true, destructive: false, idempotent: true, openWorld: true };

const FAILURES =
  'Failures: 400 validation_failed naming each field (a name that is not a valid naming template, config.campaign.accountId, a creative, copy or ' +
  "ad account that is not the brand's, an audience without what its kind needs, scope single with several accounts); 404 not_found.";

const STATUS_RULE =
  'status DRAFT, READY or NEEDS_ATTENTION is set directly; the service sets NEEDS_ATTENTION itself, with statusReasons naming each field, ' +
  'when an ad account or audience the template names no longer exists.';

const createStructureTemplate = defineOperation({
  name: 'create-structure-template',
  method: 'POST',
  path: '/brands/{brandId}/structure-templates',
  scope: 'write',
  idempotency: 'optional',
  input: 'create-structure-template#/$defs/input',
  output: 'create-structure-template#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'templates',
  toolset: 'templates',
  successStatus: 201,
  // Audiences are checked on the ad platform, which must not happen inside a database transaction.
  transactional: false,
  summary: 'Save a structure template: a campaign tree (config: campaign, adSets[], ads[]) applied per ad account and audience, with default settings.',
  description:
    'config holds node properties as in a launch; names may use naming-template tokens ({brand}, {account}, {audience}, {country}, {date:YYYY-MM-DD}, ...) ' +
    "and default to the ad account's naming convention. audiences (1 to 50; kinds targetingSet with targeting, customAudience and savedAudience with " +
    'audienceId) each get one ad set per config ad set. settings: budget {dailyAmount, minor units} used when neither the campaign nor an ad set has one, ' +
    'startOffsetDays, durationDays, placements. accounts are ad account ids of the brand; scope (single allows one) defaults to multiple when several are named. ' +
    `${STATUS_RULE} Default status DRAFT. ${FAILURES}`,
  uses: ['platforms', 'activity'],
  async handler(ctx, input) {
    const accounts = input.accounts ?? [];
    const parts = { config: input.config, audiences: input.audiences, accounts, scope: input.scope ?? (accounts.length > 1 ? 'multiple' : 'single') } as const;
    const issues = await checkTemplate(ctx, parts, input.scope !== undefined);
    if (issues.length) throw validationFailed(issues);
    const reasons = await missingParts(ctx, parts, { platform: true });
    const now = ctx.now();
    const status: TemplateStatus = reasons.length ? 'NEEDS_ATTENTION' : (input.status ?? 'DRAFT');
    const id = await inTransaction(ctx.db, async (trx) => {
      const newId = await insertTemplate(
        trx,
        ctx.principal.organizationId,
        ctx.brand.id,
        { ...parts, name: input.name, settings: input.settings ?? {}, status, statusReasons: reasons },
        now,
      );
      await ctx.activity.record(
        {
          brandId: ctx.brand.id,
          accountId: null,
          entityType: 'unknown',
          entityId: String(newId),
          entityName: input.name,
          action: 'structure_template.created',
        },
        trx,
      );
      return newId;
    });
    return templateView(await loadTemplate(ctx.db, ctx.brand.id, id));
  },
});

const listStructureTemplates = defineOperation({
  name: 'list-structure-templates',
  method: 'GET',
  path: '/brands/{brandId}/structure-templates',
  scope: 'read',
  idempotency: 'none',
  input: 'list-structure-templates#/$defs/input',
  output: 'list-structure-templates#/$defs/output',
  annotations: { ...read, openWorld: false },
  tag: 'templates',
  toolset: 'templates',
  summary: 'List the structure templates of a brand, newest first.',
  description: `Each template's ad accounts are checked again (audiences are checked by get-structure-template and on apply). ${STATUS_RULE}`,
  uses: ['page', 'platforms'],
  async handler(ctx, input) {
    const rows = await templatesOf(ctx.db, ctx.brand.id, input.limit + 1, { status: input.status, beforeId: ctx.page.beforeId() });
    const { rows: page, nextCursor } = ctx.page.pageOf(rows, (t) => [t.id]);
    const known = await accountIdsOf(ctx.db, ctx.brand.id);
    const templates = [];
    for (const t of page) templates.push(templateView(await flagMissing(ctx.db, t, await missingParts(ctx, t, { platform: false, known }), ctx.now())));
    return { structureTemplates: templates, nextCursor };
  },
});

const getStructureTemplate = defineOperation({
  name: 'get-structure-template',
  method: 'GET',
  path: '/brands/{brandId}/structure-templates/{templateId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-structure-template#/$defs/input',
  output: 'get-structure-template#/$defs/output',
  annotations: read,
  tag: 'templates',
  toolset: 'templates',
  summary: 'Get a structure template: config, settings, audiences, accounts, scope and status (with statusReasons).',
  description: `Its ad accounts and audience ids are checked again on the ad platform. ${STATUS_RULE}`,
  uses: ['platforms'],
  async handler(ctx, input) {
    const t = await loadTemplate(ctx.db, ctx.brand.id, input.templateId);
    return templateView(await flagMissing(ctx.db, t, await missingParts(ctx, t, { platform: true }), ctx.now()));
  },
});

const editStructureTemplate = defineOperation({
  name: 'edit-structure-template',
  method: 'PATCH',
  path: '/brands/{brandId}/structure-templates/{templateId}',
  scope: 'write',
  errors: ['stale_read'],
  idempotency: 'none',
  input: 'edit-structure-template#/$defs/input',
  output: 'edit-structure-template#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  tag: 'templates',
  toolset: 'templates',
  transactional: false,
  summary: 'Change any of name, config, audiences, settings, scope, status and accounts of a structure template; only the fields sent change.',
  description:
    'Only the fields sent change: settings and config are merged key by key as a JSON merge patch (RFC 7396: keys not sent stay, null removes an optional key, ' +
    'lists such as config.adSets, audiences and accounts are replaced whole); the result is validated before saving. ' +
    `${STATUS_RULE} Setting READY while an account or audience is still missing leaves it NEEDS_ATTENTION. ${FAILURES}`,
  uses: ['patch', 'platforms', 'activity'],
  async handler(ctx, input) {
    const { brandId: _brand, templateId, ...fields } = input;
    if (!Object.keys(fields).length) {
      throw validationFailed([
        { field: 'name', code: 'invalid_type', message: 'send at least one of name, config, audiences, settings, scope, status or accounts' },
      ]);
    }
    const current = await loadTemplate(ctx.db, ctx.brand.id, templateId);
    // settings and config merge key by key (RFC 7396); lists and other fields replace.
    const next: StructureTemplate = ctx.patch(current, fields);
    const sent = {
      config: fields.config === undefined ? undefined : next.config,
      audiences: fields.audiences,
      // Accounts and scope are checked together whenever either changes.
      ...(fields.accounts !== undefined || fields.scope !== undefined ? { accounts: next.accounts, scope: next.scope } : {}),
    };
    const issues = await checkTemplate(ctx, sent, fields.scope !== undefined);
    if (issues.length) throw validationFailed(issues);
    const reasons = await missingParts(ctx, next, { platform: true });
    next.statusReasons = reasons;
    if (reasons.length) next.status = 'NEEDS_ATTENTION';
    await inTransaction(ctx.db, async (trx) => {
      const locked = await loadTemplate(trx, ctx.brand.id, templateId, true);
      if (locked.updatedAt !== current.updatedAt)
        throw new ServiceError('stale_read', `Structure template ${templateId} changed while this edit was checked; read it again and retry.`);
      await updateTemplate(trx, locked.id, next, ctx.now());
      await ctx.activity.record(
        {
          brandId: ctx.brand.id,
          accountId: null,
          entityType: 'unknown',
          entityId: String(templateId),
          entityName: next.name,
          action: 'structure_template.updated',
        },
        trx,
      );
    });
    return templateView(await loadTemplate(ctx.db, ctx.brand.id, templateId));
  },
});

const deleteStructureTemplate = defineOperation({
  name: 'delete-structure-template',
  method: 'DELETE',
  path: '/brands/{brandId}/structure-templates/{templateId}',
  scope: 'write',
  idempotency: 'none',
  input: 'delete-structure-template#/$defs/input',
  output: 'delete-structure-template#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  tag: 'templates',
  toolset: 'templates',
  summary: 'Delete a structure template. Launches made from it stay as they are.',
  uses: ['activity'],
  async handler(ctx, input) {
    const t = await loadTemplate(ctx.db, ctx.brand.id, input.templateId, true);
    await deleteTemplate(ctx.db, t.id);
    await ctx.activity.record({
      brandId: ctx.brand.id,
      accountId: null,
      entityType: 'unknown',
      entityId: String(t.id),
      entityName: t.name,
      action: 'structure_template.deleted',
    });
    return { templateId: t.id, deleted: true as const };
  },
});

const applyStructureTemplate = defineOperation({
  name: 'apply-structure-template',
  method: 'POST',
  path: '/brands/{brandId}/structure-templates/{templateId}/launches',
  scope: 'write',
  errors: ['conflict'],
  idempotency: 'optional',
  input: 'apply-structure-template#/$defs/input',
  output: 'apply-structure-template#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'templates',
  toolset: 'templates',
  successStatus: 201,
  transactional: false,
  summary: 'Apply a READY structure template: creates one draft launch with one campaign tree per ad account in accounts, ready to publish.',
  description:
    "Each account gets a campaign; each config ad set × audience becomes an ad set (the audience's targeting merged over the ad set's; a custom or " +
    'saved audience joins customAudiences), each holding every config ad. Names are rendered per account. The tree must pass the launch validation ' +
    'that publishing applies: otherwise 400 validation_failed naming the template fields (config.*, audiences[i].*, settings.*, accounts[i]) and ' +
    'nothing is created. Failures: 409 conflict for a DRAFT template, or one that NEEDS_ATTENTION (details.reasons); 404 not_found. ' +
    'Answers {launchId, campaigns, adSets, ads}; publish the launch with launch-campaign.',
  uses: ['platforms', 'trackers', 'validate', 'progress', 'activity'],
  async handler(ctx, input) {
    const brandId = ctx.brand.id;
    let t = await loadTemplate(ctx.db, brandId, input.templateId);
    t = await flagMissing(ctx.db, t, await missingParts(ctx, t, { platform: true, strict: true }), ctx.now());
    if (t.status === 'DRAFT')
      throw new ServiceError('conflict', `Structure template ${t.id} is a DRAFT; set its status to READY (edit-structure-template) before applying it.`, {
        status: t.status,
      });
    if (t.status === 'NEEDS_ATTENTION') {
      throw new ServiceError(
        'conflict',
        `Structure template ${t.id} needs attention: ${t.statusReasons.map((r) => `${r.field} ${r.message}`).join('; ') || 'fix it'}. Then set its status to READY.`,
        { status: t.status, reasons: t.statusReasons.map((r) => ({ field: r.field, message: r.message })) },
      );
    }
    if (!t.accounts.length)
      throw validationFailed([{ field: 'accounts', code: 'invalid_value', message: 'name at least one ad account of the brand to apply the template to' }]);
    // Built and checked before anything is stored: a template that does not validate creates nothing.
    const step = (progress: number, message: string) => ctx.progress({ progress, total: 2, message });
    step(0, `Building one campaign tree for each of ${t.accounts.length} ad accounts`);
    const tree = await buildTree(ctx, t);
    for (const n of tree.nodes) n.properties = ctx.validate<Record<string, any>>(`node-properties#/$defs/${n.nodeType}`, n.properties, 'config');
    step(1, `Validating ${tree.nodes.length} nodes as a publish would`);
    const issues = await templateIssues(ctx, tree);
    if (issues.length)
      throw validationFailed(issues, `Structure template ${t.id} does not make a valid launch: ${issues.length} issues; fix these template fields.`);
    step(2, 'Storing the draft launch');
    return inTransaction(ctx.db, async (trx) => {
      const launch = await createDraftLaunch(
        ctx,
        ctx.brand.id,
        (input.title ?? t.name).slice(0, 200),
        `From structure template ${t.id} (${t.name})`.slice(0, 2000),
        trx,
      );
      for (const n of tree.nodes) n.launchId = launch.id;
      await insertNodes(trx, tree.nodes);
      await ctx.activity.record(
        { brandId, accountId: null, entityType: 'unknown', entityId: String(t.id), entityName: t.name, action: 'structure_template.applied' },
        trx,
      );
      return { launchId: String(launch.id), templateId: t.id, title: launch.title, status: launch.status, ...countsOf(tree.nodes) };
    });
  },
});

/** The structure-templates area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [
  createStructureTemplate,
  listStructureTemplates,
  getStructureTemplate,
  editStructureTemplate,
  deleteStructureTemplate,
  applyStructureTemplate,
];
