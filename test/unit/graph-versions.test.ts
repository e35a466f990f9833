// The Graph version table (src/platforms/meta/versions.ts): its default is the newest version a
// vendored generated source describes, it does not end within 60 days of the newest commit (this
// test fails the day it would: move to the next version, docs/platforms.md "Graph versions"), a
// configured version ending within 60 days is said, and placements Meta removed apply by version.
// The check of the default is a function (defaultVersionProblem), tested on tables that pass and fail it.

import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import {
  DEFAULT_GRAPH_VERSION,
  GRAPH_VERSIONS,
  REMOVED_POSITIONS,
  VERSION_NOTICE_DAYS,
  answeringVersion,
  defaultVersionProblem,
  removedPositionsAt,
  versionNotice,
} from '../../src/platforms/meta/versions.js';
import { PLACEMENT_POSITIONS } from '../../src/platforms/placements.js';
import { GRAPH_SPEC, JAVA_SDK } from '../fakes/meta-spec/validate.js';
import { projectPath } from '../../src/paths.js';

/** The date of the newest commit of this checkout (the clock when git cannot say). */
function newestCommit(): number {
  try {
    return Date.parse(execFileSync('git', ['-C', projectPath(), 'log', '-1', '--format=%cI'], { encoding: 'utf8' }).trim()) || Date.now();
  } catch {
    return Date.now();
  }
}

describe('Graph versions', () => {
  it('defaults to the newest version a vendored generated source describes, which the table lists with its source', () => {
    const newest = [GRAPH_SPEC.graphVersion, JAVA_SDK.apiVersion].sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)))[0];
    expect(DEFAULT_GRAPH_VERSION).to.equal(newest);
    const row = GRAPH_VERSIONS.find((v) => v.version === DEFAULT_GRAPH_VERSION);
    expect(row, 'the default is in the table').to.not.equal(undefined);
    for (const v of GRAPH_VERSIONS) expect(v.source).to.match(/^https:\/\/developers\.facebook\.com\//);
    expect(GRAPH_VERSIONS.find((v) => v.version === 'v24.0')).to.include({ ends: '2026-11-10' });
    expect(GRAPH_VERSIONS.find((v) => v.version === 'v25.0')).to.include({ ends: '2027-02-23' });
  });

  it(`the default does not end within ${VERSION_NOTICE_DAYS} days of the newest commit (else: move to the next version)`, () => {
    expect(defaultVersionProblem(GRAPH_VERSIONS, DEFAULT_GRAPH_VERSION, newestCommit()), 'docs/platforms.md, "Graph versions"').to.equal(null);
  });

  it('the check fails a default that ends within 60 days of that date or has ended, or that the table does not list, and passes one ending later or not at all', () => {
    const at = Date.parse('2026-11-28T00:00:00Z');
    const table = (ends: string | null) => [{ version: 'v30.0', released: '2026-01-01', ends, source: 'https://developers.facebook.com/' }];
    expect(defaultVersionProblem(table('2027-01-20'), 'v30.0', at), '53 days left').to.equal(
      'the default Graph version v30.0 ends on 2027-01-20, within 60 days; move the default on',
    );
    expect(defaultVersionProblem(table('2026-11-01'), 'v30.0', at), 'ended').to.match(/ends on 2026-11-01/);
    expect(defaultVersionProblem(table('2027-01-28'), 'v30.0', at), '61 days left').to.equal(null);
    expect(defaultVersionProblem(table(null), 'v30.0', at), 'Meta has set no end').to.equal(null);
    expect(defaultVersionProblem(table(null), 'v31.0', at)).to.equal('the default Graph version v31.0 is not in the version table');
  });

  it('says when the configured version ends within 60 days or has ended, naming the date and META_GRAPH_URL; nothing for a version far from its end', () => {
    const at = Date.parse('2026-11-28T00:00:00Z');
    expect(versionNotice('https://graph.facebook.com/v24.0', at)).to.match(
      /^Graph version v24\.0 \(META_GRAPH_URL\) ended on 2026-11-10;.*Move META_GRAPH_URL to v26\.0/,
    );
    expect(versionNotice('https://graph.facebook.com/v25.0', at), '87 days before its end').to.equal(null);
    expect(versionNotice('https://graph.facebook.com/v25.0', Date.parse('2027-01-01T00:00:00Z'))).to.match(/v25\.0 \(META_GRAPH_URL\) ends on 2027-02-23/);
    expect(versionNotice('https://graph.facebook.com/v26.0', at), 'Meta has set no end yet').to.equal(null);
    expect(versionNotice('http://127.0.0.1:9/v31.0', at)).to.match(/v31\.0, which this service's version table does not list/);
  });

  it("treats a version older than the table's oldest row as ended: answered as the oldest living version, its removed placements applied, and said", () => {
    const at = Date.parse('2026-11-28T00:00:00Z');
    // v22.0 to v24.0 have ended by then: v25.0 is the oldest living one.
    expect(answeringVersion('v19.0', at)).to.equal('v25.0');
    expect(answeringVersion('v21.0', Date.parse('2025-06-01T00:00:00Z')), 'v22.0 still lived then').to.equal('v22.0');
    expect(removedPositionsAt('v19.0', at).map((r) => r.position)).to.deep.equal(['facebook:video_feeds', 'messenger:story']);
    expect(versionNotice('http://127.0.0.1:9/v19.0', at)).to.equal(
      'Graph version v19.0 (META_GRAPH_URL) is older than v22.0, the oldest in this service\'s version table, so it has ended; Meta answers it as the oldest living version, v25.0, whose removed placements and fields apply. Move META_GRAPH_URL to v26.0 (docs/platforms.md, "Graph versions").',
    );
  });

  it('applies what changed by version: an ended version is answered by the next, removed placements from their version (or date)', () => {
    const at = Date.parse('2026-11-28T00:00:00Z');
    expect(answeringVersion('v24.0', at)).to.equal('v25.0');
    expect(answeringVersion('v24.0', Date.parse('2026-11-01T00:00:00Z'))).to.equal('v24.0');
    const removed = (version: string, now = at) => removedPositionsAt(version, now).map((r) => r.position);
    expect(removed('v25.0')).to.deep.equal(['facebook:video_feeds', 'messenger:story']);
    expect(removed('v25.0', Date.parse('2026-09-01T00:00:00Z'))).to.deep.equal(['facebook:video_feeds']);
    expect(removed('v26.0')).to.deep.equal(['facebook:video_feeds', 'instagram:explore', 'messenger:story']);
    for (const r of REMOVED_POSITIONS) {
      expect(PLACEMENT_POSITIONS.meta, 'still named, so the refusal can say what replaced it').to.include(r.position);
      for (const instead of r.instead.split(' or ')) expect(PLACEMENT_POSITIONS.meta).to.include(instead);
      expect(r.source).to.match(/v2[46]\.0/);
    }
  });
});
