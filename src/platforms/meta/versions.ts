// The Marketing API (Graph) versions the service knows: each version's release and end date with its
// source, the default version, and what changed between versions (placements removed), applied by
// the version META_GRAPH_URL names. Moving to the next version is docs/platforms.md, "Graph versions".

import { DEFAULT_META_GRAPH_URL } from '../../config.js';

/** One Marketing API version as Meta's version table lists it; `ends` null while Meta says TBD. */
export interface GraphVersion {
  version: string;
  released: string;
  ends: string | null;
  source: string;
}

const VERSION_TABLE =
  'https://developers.facebook.com/documentation/ads-commerce/marketing-api/marketing-api-changelog/versions (Marketing API version history)';

/** Meta's Marketing API version table, oldest first (release and expiration dates as Meta publishes them). */
export const GRAPH_VERSIONS: readonly GraphVersion[] = [
  { version: 'v22.0', released: '2025-01-21', ends: '2026-02-19', source: VERSION_TABLE },
  { version: 'v23.0', released: '2025-05-29', ends: '2026-06-09', source: VERSION_TABLE },
  { version: 'v24.0', released: '2025-10-08', ends: '2026-11-10', source: VERSION_TABLE },
  { version: 'v25.0', released: '2026-02-18', ends: '2027-02-23', source: VERSION_TABLE },
  { version: 'v26.0', released: '2026-07-29', ends: null, source: VERSION_TABLE },
  { version: 'v27.0', released: '2026-11-04', ends: null, source: VERSION_TABLE },
];

/**
 * The default Graph version (of DEFAULT_META_GRAPH_URL): the newest one a vendored, generated source
 * describes. The codegen api_specs stop at v25.0; Meta's generated Java SDK
 * (facebook/facebook-java-business-sdk @a73f92d, APIConfig.DEFAULT_API_VERSION, vendored in
 * test/fakes/meta-spec/java-sdk.json) describes v26.0.
 */
export const DEFAULT_GRAPH_VERSION = /\/(v\d+\.\d+)$/.exec(DEFAULT_META_GRAPH_URL)![1];

/** How long before a version's end the service says so (at start-up and on /readyz). */
export const VERSION_NOTICE_DAYS = 60;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The version a Graph base URL names ("https://graph.facebook.com/v26.0" → "v26.0"), or null. */
export function versionOfUrl(url: string): string | null {
  return /\/(v\d+\.\d+)(?:\/|$)/.exec(url)?.[1] ?? null;
}

/** The major number of a version ("v26.0" → 26). */
export const majorOf = (version: string): number => Number(/^v(\d+)/.exec(version)?.[1] ?? 0);

/** Whether `version` is older than the table's oldest row: it has ended (Meta keeps a version about two years). */
export const olderThanTable = (version: string): boolean => majorOf(version) < majorOf(GRAPH_VERSIONS[0].version);

/** The end date of `known` when it falls within VERSION_NOTICE_DAYS of `now` (or has passed), else null (far off, or Meta has set none). */
function endingSoon(known: GraphVersion, now: number): string | null {
  if (!known.ends) return null;
  return Date.parse(`${known.ends}T00:00:00Z`) - now > VERSION_NOTICE_DAYS * DAY_MS ? null : known.ends;
}

/**
 * What an operator is told about the configured version: null when it is known and ends more than
 * VERSION_NOTICE_DAYS after `now` (or Meta has not set its end), else one sentence naming the end
 * date and META_GRAPH_URL. A version the table does not know is said too.
 */
export function versionNotice(graphUrl: string, now: number): string | null {
  const version = versionOfUrl(graphUrl);
  const known = GRAPH_VERSIONS.find((v) => v.version === version);
  if (version && olderThanTable(version)) {
    const living = answeringVersion(version, now);
    return `Graph version ${version} (META_GRAPH_URL) is older than ${GRAPH_VERSIONS[0].version}, the oldest in this service's version table, so it has ended; Meta answers it as the oldest living version, ${living}, whose removed placements and fields apply. Move META_GRAPH_URL to ${DEFAULT_GRAPH_VERSION} (docs/platforms.md, "Graph versions").`;
  }
  if (!version || !known) {
    return `META_GRAPH_URL names Graph version ${version ?? '(none)'}, which this service's version table does not list; use ${DEFAULT_GRAPH_VERSION} (docs/platforms.md, "Graph versions").`;
  }
  const ends = endingSoon(known, now);
  if (!ends) return null;
  const when = Date.parse(`${ends}T00:00:00Z`) <= now ? `ended on ${ends}` : `ends on ${ends}`;
  return `Graph version ${version} (META_GRAPH_URL) ${when}; Meta then answers with the next version's behaviour. Move META_GRAPH_URL to ${DEFAULT_GRAPH_VERSION} (docs/platforms.md, "Graph versions").`;
}

/**
 * Why `version` may not be the default of `table` at `now` (the date of the newest commit, when
 * releasing): the table does not list it, or Meta ends it within VERSION_NOTICE_DAYS or has ended
 * it; null while it may stay. Moving to the next version: docs/platforms.md, "Graph versions".
 */
export function defaultVersionProblem(table: readonly GraphVersion[], version: string, now: number): string | null {
  const known = table.find((v) => v.version === version);
  if (!known) return `the default Graph version ${version} is not in the version table`;
  const ends = endingSoon(known, now);
  return ends ? `the default Graph version ${version} ends on ${ends}, within ${VERSION_NOTICE_DAYS} days; move the default on` : null;
}

/** A placement Meta removed: from which version (or, for every version, from which date), and what to use instead. */
export interface RemovedPosition {
  position: string;
  /** Refused by Meta from this version on. */
  sinceVersion: string;
  /** Applied to every version from this date on (ISO date), when Meta says so. */
  everyVersionFrom?: string;
  /** Meta refuses it (error), or drops it without a word (the ad set then runs elsewhere than asked). */
  effect: 'error' | 'stripped';
  instead: string;
  /** The changelog line it comes from. */
  source: string;
}

/** The placements Meta removed, by version, each with its changelog line. */
export const REMOVED_POSITIONS: readonly RemovedPosition[] = [
  {
    position: 'facebook:video_feeds',
    sinceVersion: 'v24.0',
    effect: 'error',
    instead: 'facebook:feed or facebook:facebook_reels',
    source:
      'Marketing API v24.0 (facebook-nodejs-business-sdk 24.0.0 release notes): "The Facebook video feeds ad placement is no longer available in Marketing API v24.0, and attempts to use it will result in errors."',
  },
  {
    position: 'instagram:explore',
    sinceVersion: 'v26.0',
    effect: 'error',
    instead: 'instagram:stream or instagram:reels',
    source:
      'Introducing Graph API v26.0 and Marketing API v26.0 (2026-07-29): "Instagram Explore feed ... Starting with v26.0 ... this placement is deprecated. Developers should remove explore from their placement configurations"; Java SDK v26.0.0 release: "returns errors if specified".',
  },
  {
    position: 'messenger:story',
    sinceVersion: 'v26.0',
    everyVersionFrom: '2026-10-27',
    effect: 'stripped',
    instead: 'facebook:story or instagram:story',
    source:
      'Introducing Graph API v26.0 and Marketing API v26.0 (2026-07-29): "Messenger Stories: starting with v26.0 calls, the story value is silently removed from messenger_positions when creating or updating ad sets. The deprecation applies to all Marketing API versions on October 27, 2026, including unversioned calls."',
  },
];

/**
 * The version whose behaviour answers a call to `version` at `now`: the version itself, or once it has
 * ended the next one ("a call to an ended version is answered by the next one", live-platforms.md).
 */
export function answeringVersion(version: string, now: number): string {
  // Older than the table: ended, answered as the oldest living version ("a call to an ended version is answered by the next one").
  if (olderThanTable(version)) return answeringVersion(GRAPH_VERSIONS[0].version, now);
  const at = GRAPH_VERSIONS.findIndex((v) => v.version === version);
  if (at < 0) return version;
  const ends = GRAPH_VERSIONS[at].ends;
  const next = GRAPH_VERSIONS[at + 1];
  return ends && next && Date.parse(`${ends}T00:00:00Z`) <= now ? answeringVersion(next.version, now) : version;
}

/** The removed placements that hold for calls to `version` at `now`. */
export function removedPositionsAt(version: string, now: number): RemovedPosition[] {
  const answering = majorOf(answeringVersion(version, now));
  return REMOVED_POSITIONS.filter(
    (r) => answering >= majorOf(r.sinceVersion) || (r.everyVersionFrom !== undefined && now >= Date.parse(`${r.everyVersionFrom}T00:00:00Z`)),
  );
}
