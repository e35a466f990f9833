// The server `instructions` an agent gets at initialize: where to start, the three-step launch,
// the money units and how to load more tools. Said once here so that no tool repeats it.

import { TOOLSETS, TOOLSET_NAMES } from '../../src/toolsets.js';
import { MCP_PAGE_SIZE, EVERY_TOOL_FAILS_WITH } from './tools.js';
import { MAX_ANSWER_CHARS } from './answer-budget.js';

/** The instructions text, naming the toolsets from the catalogue's table. */
export function serverInstructions(): string {
  const defaults = TOOLSET_NAMES.filter((t) => TOOLSETS[t].default);
  const others = TOOLSET_NAMES.filter((t) => !TOOLSETS[t].default);
  return [
    'Launch and watch ad campaigns per brand on Meta- and TikTok-style ad platforms.',
    'Start with list_brands: it lists the brands this credential reaches and their ad accounts; every brand tool takes that brandId.',
    'Launching is three steps: (1) draft: create_launch, then create_node for the campaign, its ad sets and their ads (upload_creative for images and videos); ' +
      '(2) preview: launch_campaign without confirm validates and shows every object to be created and what it would count against the ceiling, changing nothing; ' +
      '(3) confirm: launch_campaign with confirm: true publishes and spends. If your client can ask its user, the user is asked to approve the amounts first. ' +
      'If it cannot (no elicitation), every call that moves money (launch_campaign with confirm, edit_live_campaign, update_node of a live status, a pipeline card into a column that publishes, ' +
      'run_workflow and review_workflow_step before a launch or budget step) needs the planFingerprint of the plan shown: without it nothing moves and the answer is the plan with its planFingerprint; ' +
      'show that plan to the person and, if they agree, call again with planFingerprint. A live change (a budget, a status) has its own planFingerprint, good for that one change only. ' +
      'activate_workflow of a workflow with a launch or budget step likewise needs planFingerprints, one per plan it binds.',
    "Money is an integer in minor units of the ad account's currency (5000 on a USD account is $50.00; on a JPY account, 5,000 yen). " +
      "A key's publish ceiling is in US dollars, answered in US cents. Days and date presets are in the ad account's time zone; times are ISO 8601 UTC.",
    `Lists answer ${MCP_PAGE_SIZE} items unless you pass limit (1 to 100); pass nextCursor back as cursor with the same filters and limit.`,
    'Every id argument takes an integer or a string of digits. Tools that act take idempotencyKey: send the same key when you retry, so nothing happens twice.',
    `A failed call is an isError result whose text is {"error": {code, message, details, requestId}}; any tool can fail with ${EVERY_TOOL_FAILS_WITH.join(' or ')} (details name each field to fix); ` +
      'a tool that takes an id with not_found, brandId with brand_not_allowed, idempotencyKey with idempotency_conflict (idempotency_key_required when it is required), ' +
      "one that publishes with spend_ceiling_required, spend_ceiling_exceeded or unavailable; each tool's description names its other codes. " +
      `An answer over ${MAX_ANSWER_CHARS.toLocaleString('en-US')} characters (text and structured content together) comes as a summary naming what was left out plus a resource_link: read the whole with resources/read.`,
    `Tools come in toolsets. Loaded unless you choose: ${defaults.join(', ')}. Others: ${others.map((t) => `${t} (${TOOLSETS[t].description.replace(/\.$/, '').toLowerCase()})`).join('; ')}. ` +
      'Choose with the X-MCP-Toolsets header (comma-separated, or all) or svc mcp --toolsets; with dynamic, list_toolsets and enable_toolset load more in this session. X-MCP-Readonly: true (svc mcp --read-only) keeps only tools that change nothing.',
  ].join('\n');
}
