// The pipeline board through the SDK's real MCP Client: columns made and read in order, a card
// created and moved (the publish cases of a publishing column for a key with and without publish,
// and past the ceiling), the version guard answered as a stale_read tool error, and deletes.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';
import { brandApi, buildLaunch, planFingerprintOf, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { boardWorld, commitmentStates, committedCents } from '../../helpers/board.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

for (const dialect of dialects()) {
  describe(`pipeline board through MCP tools (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: Client;
    let editor: Client;
    let shoes: number;
    let api: Api;
    let creativeId: number;

    /** A tool call that must succeed: its structured content. */
    const ok = async (client: Client, name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: { brandId: shoes, ...args } })) as ToolResult;
      expect(r.isError, `${name}: ${r.content?.[0]?.text}`).to.not.equal(true);
      return r.structuredContent;
    };
    /** A tool call that must fail: its error envelope. */
    const failed = async (client: Client, name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: { brandId: shoes, ...args } })) as ToolResult;
      expect(r.isError, `${name} should fail`).to.equal(true);
      return JSON.parse(r.content[0].text!).error;
    };

    before(async () => {
      w = await startWorld({ dialect, bootstrap: boardWorld });
      shoes = w.brandId('acme', 'shoes');
      ci = await mcpClient(w.url, w.key('acme', 'ci'));
      editor = await mcpClient(w.url, w.key('acme', 'editor'));
      api = brandApi(w, w.key('acme', 'ci'), shoes);
      creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
    });
    after(async () => {
      await ci?.close();
      await editor?.close();
      await w?.close();
    });

    it('makes columns, reads the board in order, and deletes an empty column', async () => {
      const live = await ok(ci, 'create_pipeline_column', { name: 'Live', publishes: true });
      const draft = await ok(ci, 'create_pipeline_column', { name: 'Draft', position: 0 });
      const workflow = await ok(ci, 'create_workflow', {
        workflowName: 'Review',
        trigger: { kind: 'manual' },
        nodes: [{ nodeId: 'review', kind: 'review', settings: {} }],
        edges: [],
      });
      // An id may be sent as its digits: it is answered as a number.
      await ok(ci, 'create_pipeline_column', { name: 'Review', position: 1, workflowId: String(workflow.workflowId) });
      const spare = await ok(ci, 'create_pipeline_column', { name: 'Spare' });
      expect(draft).to.deep.include({ name: 'Draft', position: 0, publishes: false });
      expect(await ok(ci, 'delete_pipeline_column', { columnId: spare.columnId })).to.deep.equal({ columnId: spare.columnId, deleted: true });
      const board = await ok(ci, 'get_pipeline', {});
      expect(board.columns.map((c: any) => [c.name, c.position, c.publishes, c.workflowId])).to.deep.equal([
        ['Draft', 0, false, null],
        ['Review', 1, false, workflow.workflowId],
        ['Live', 2, true, null],
      ]);
      expect(board.columns[2].columnId).to.equal(live.columnId);
    });

    it('moves a card into the publishing column: published for a key with publish, publish_scope_missing without it', async () => {
      const { columns } = await ok(ci, 'get_pipeline', {});
      const [draft, , live] = columns;
      const committed = await committedCents(w, 'acme', 'ci');

      const mine = await buildLaunch(api, { title: 'Agent launch', creativeId });
      const card = await ok(ci, 'create_pipeline_card', { launchId: mine.launchId, columnId: draft.columnId, idempotencyKey: `mcp-card-${mine.launchId}` });
      expect(card).to.deep.include({ version: 1, position: 0, publish: { attempted: false, published: false, reason: null } });
      // This client cannot ask its user: a move that publishes names the plan it showed, or publishes nothing.
      const unnamed = await ok(ci, 'move_pipeline_card', { cardId: card.cardId, columnId: live.columnId, version: 1 });
      expect(unnamed.publish).to.deep.equal({ attempted: false, published: false, reason: 'plan_confirmation_required' });
      expect((await ok(ci, 'get_pipeline', {})).cards.find((c: any) => c.cardId === card.cardId).columnId, 'not moved').to.equal(draft.columnId);
      const planFingerprint = await planFingerprintOf(api, mine.launchId);
      expect(unnamed.planFingerprint).to.equal(planFingerprint);
      const moved = await ok(ci, 'move_pipeline_card', { cardId: card.cardId, columnId: live.columnId, version: 1, planFingerprint });
      expect(moved).to.deep.include({ columnId: live.columnId, version: 2, launchStatus: 'published' });
      expect(moved).to.not.have.property('publishError');
      expect(moved.publish).to.deep.equal({ attempted: true, published: true, reason: null });
      expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + 5000);

      const theirs = await buildLaunch(api, { title: 'Editor launch', creativeId });
      const other = await ok(editor, 'create_pipeline_card', { launchId: theirs.launchId, columnId: draft.columnId });
      const placed = await ok(editor, 'move_pipeline_card', { cardId: other.cardId, columnId: live.columnId, version: other.version });
      expect(placed).to.deep.include({ columnId: live.columnId, launchStatus: 'draft' });
      expect(placed.publish).to.deep.equal({ attempted: false, published: false, reason: 'publish_scope_missing' });
      expect(await commitmentStates(w, theirs.launchId)).to.deep.equal([]);
      expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + 5000);

      // The ci key now publishes the same card past its $100 ceiling: placed, refused, nothing reserved.
      const big = await buildLaunch(api, { title: 'Too big', creativeId, campaign: { budget: { dailyAmount: 6000 } } });
      const bigCard = await ok(ci, 'create_pipeline_card', { launchId: big.launchId, columnId: draft.columnId });
      const refused = await ok(ci, 'move_pipeline_card', {
        cardId: bigCard.cardId,
        columnId: live.columnId,
        version: 1,
        planFingerprint: await planFingerprintOf(api, big.launchId),
      });
      expect(refused.publish).to.deep.equal({ attempted: true, published: false, reason: 'spend_ceiling_exceeded' });
      expect(refused.publishError.code).to.equal('spend_ceiling_exceeded');
      expect(await committedCents(w, 'acme', 'ci')).to.equal(committed + 5000);
      expect(await commitmentStates(w, big.launchId)).to.deep.equal([]);
    });

    it('answers a move naming an old version with a stale_read tool error, and deletes the card', async () => {
      const { columns, cards } = await ok(ci, 'get_pipeline', {});
      const card = cards[0];
      const error = await failed(ci, 'move_pipeline_card', { cardId: card.cardId, columnId: columns[1].columnId, version: card.version - 1 });
      expect(error).to.deep.include({ code: 'stale_read', details: { cardId: card.cardId, currentVersion: card.version } });
      const twice = await failed(ci, 'create_pipeline_card', { launchId: card.launchId, columnId: columns[0].columnId });
      expect(twice.code).to.equal('conflict');
      expect(await ok(ci, 'delete_pipeline_card', { cardId: card.cardId })).to.deep.equal({ cardId: card.cardId, deleted: true });
      expect((await failed(ci, 'delete_pipeline_card', { cardId: card.cardId })).code).to.equal('not_found');
    });
  });
}
