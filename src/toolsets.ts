// The toolsets an MCP client chooses from: each groups the tools of one job, and every operation
// names its toolset in its catalogue entry. `default` stands for the toolsets marked default
// (the everyday launch, read and monitoring work); `all` for every toolset.

export const TOOLSETS = {
  launch: { default: true, description: 'Build launches (campaign, ad set and ad trees), upload creatives, preview and publish, change live budgets.' },
  accounts: { default: true, description: 'Brands and their ad accounts: live campaigns, lead forms, targeting options.' },
  monitor: { default: true, description: 'How live campaigns perform and what changed: account overview and the activity log.' },
  templates: { default: false, description: 'Snapshot and structure templates: save a launch shape, apply it per ad account and audience.' },
  copy: { default: false, description: 'The brand profile and generated ad copy (headlines, primary texts, descriptions).' },
  automate: { default: false, description: 'Monitoring automations that pause or notify when conditions hold, their previews and runs.' },
  workflows: { default: false, description: 'Multi-step workflows (apply template, launch, review, chat, agent steps), their runs and reviews.' },
  board: { default: false, description: 'The pipeline board: columns and cards; a column that publishes publishes the launches moved into it.' },
  setup: {
    default: false,
    description:
      "An ad account's set-up, done once by a person or an admin agent: its page, identity, EU and regional identities, allowlisted features and Smart+, and its naming convention.",
  },
  integrate: { default: false, description: 'Webhook endpoints and deliveries, and the click tracker: connection, campaign mappings, spend push.' },
} as const satisfies Record<string, { default: boolean; description: string }>;

export type Toolset = keyof typeof TOOLSETS;

export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

/** The names that are not toolsets of their own: the toolsets marked default, every toolset, and the in-band choice. */
export const DEFAULT_TOOLSETS = 'default';
export const ALL_TOOLSETS = 'all';
/** Toolsets found and loaded in-band: the list holds list_toolsets and enable_toolset beside the default toolsets. */
export const DYNAMIC_TOOLSETS = 'dynamic';

/** A client's choice: the toolsets it names (null: none named) and whether it loads more in-band. */
export interface ToolsetChoice {
  toolsets: Set<Toolset> | null;
  dynamic: boolean;
}

/** `parseToolsets` of a choice that may also name `dynamic` (which alone means the default toolsets, loaded further in-band). */
export function parseChoice(choice: string | undefined | null): ToolsetChoice {
  const names = (choice ?? '').split(',').map((n) => n.trim().toLowerCase());
  const dynamic = names.includes(DYNAMIC_TOOLSETS);
  const rest = names.filter((n) => n && n !== DYNAMIC_TOOLSETS);
  return { toolsets: parseToolsets(dynamic && !rest.length ? DEFAULT_TOOLSETS : rest.join(',')), dynamic };
}

/** True when `name` is a toolset an operation may declare. */
export function isToolset(name: unknown): name is Toolset {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(TOOLSETS, name);
}

/**
 * The toolsets a comma-separated choice names (`default` and `all` expanded, blanks ignored);
 * null when it names nothing. Throws on an unknown name, saying which names exist.
 */
export function parseToolsets(choice: string | undefined | null): Set<Toolset> | null {
  const names = (choice ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (!names.length) return null;
  const out = new Set<Toolset>();
  for (const name of names) {
    if (name === ALL_TOOLSETS) TOOLSET_NAMES.forEach((t) => out.add(t));
    else if (name === DEFAULT_TOOLSETS) TOOLSET_NAMES.filter((t) => TOOLSETS[t].default).forEach((t) => out.add(t));
    else if (isToolset(name)) out.add(name);
    else throw new Error(`unknown toolset "${name}"; choose from ${[DEFAULT_TOOLSETS, ALL_TOOLSETS, DYNAMIC_TOOLSETS, ...TOOLSET_NAMES].join(', ')}`);
  }
  return out;
}
