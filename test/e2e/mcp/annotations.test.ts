// Annotations say what a tool does to the world (paths.md, "What an agent sees must stand on its
// own"), checked over every tool of `all` as the SDK's Client lists them: all four hints present
// and boolean; a read-only tool neither destructive nor acting; every tool that moves money or can
// start a publish destructive and open-world; every tool that can pause, enable or change what runs
// on an ad platform destructive; every tool that reaches an address outside the service open-world.

import { expect } from 'chai';
import { mcpClient } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';

/** Tools that move money or can start a publish (update_node sets a live campaign ACTIVE again). */
const MOVES_MONEY = [
  'launch_campaign',
  'edit_live_campaign',
  'create_pipeline_card',
  'move_pipeline_card',
  'run_workflow',
  'review_workflow_step',
  'update_node',
];
/** Tools that can pause, enable or change what runs on an ad platform. */
const CHANGES_WHAT_RUNS = ['run_automation', 'set_automation_status', 'review_workflow_step', 'activate_workflow', ...MOVES_MONEY];
/** Tools that fetch from or send to an address outside the service (preview_launch asks Meta with validate_only). */
const OUTSIDE = ['upload_creative', 'test_webhook_endpoint', 'connect_tracker', 'run_tracker_push', 'preview_launch', ...MOVES_MONEY];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

describe('MCP annotations over every tool', () => {
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite' });
  });
  after(async () => w?.close());

  it('every tool carries all four hints, and the contract’s tools say what they do to the world', async () => {
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.length).to.equal(w.service.catalogue.list().length);
    const byName = new Map(tools.map((t) => [t.name, t.annotations as Record<string, unknown>]));
    for (const tool of tools) {
      const a = tool.annotations as Record<string, unknown>;
      for (const hint of HINTS) expect(a[hint], `${tool.name}.${hint}`).to.be.a('boolean');
      if (a.readOnlyHint) expect(a.destructiveHint, `${tool.name} is read-only`).to.equal(false);
    }
    for (const name of MOVES_MONEY) expect(byName.get(name), name).to.deep.include({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    for (const name of CHANGES_WHAT_RUNS) expect(byName.get(name), name).to.deep.include({ readOnlyHint: false, destructiveHint: true });
    for (const name of OUTSIDE) expect(byName.get(name), name).to.deep.include({ openWorldHint: true });
  });
});
