// The two tools of `X-MCP-Toolsets: dynamic` (svc mcp --toolsets dynamic): an agent finds the
// toolsets and loads one in-band instead of reconnecting. Not operations of the catalogue (they act
// on the MCP session, not on the service), so they are written here in the tools' own shape.

import { TOOLSET_NAMES } from '../../src/toolsets.js';
import type { ToolDefinition } from './tools.js';

export const LIST_TOOLSETS = 'list_toolsets';
export const ENABLE_TOOLSET = 'enable_toolset';

const toolNames = { type: 'array', items: { type: 'string' } };

/** list_toolsets and enable_toolset, as tools/list lists them in dynamic mode. */
export const DYNAMIC_TOOLS: ToolDefinition[] = [
  {
    name: LIST_TOOLSETS,
    title: 'List toolsets',
    description: 'The toolsets this server offers, what each is for, its tools, and whether this session has it.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: {
      type: 'object',
      required: ['toolsets'],
      properties: {
        toolsets: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, enabled: { type: 'boolean' }, tools: toolNames } },
        },
      },
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: ENABLE_TOOLSET,
    title: 'Enable a toolset',
    description: "Loads a toolset's tools for the rest of this session; the server then sends notifications/tools/list_changed.",
    inputSchema: {
      type: 'object',
      required: ['toolset'],
      properties: { toolset: { type: 'string', enum: [...TOOLSET_NAMES], description: 'The toolset to load (list_toolsets says what each is for).' } },
    },
    outputSchema: { type: 'object', required: ['toolset'], properties: { toolset: { type: 'string' }, tools: toolNames } },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
];
