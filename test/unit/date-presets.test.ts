// Date presets resolve in the ad account's timezone; last_Nd ends yesterday; maximum is lifetime.

import { expect } from 'chai';
import { DATE_PRESETS, resolveDatePreset } from '../../src/platforms/date-presets.js';
import { deliver } from '../../src/platforms/sandbox/delivery.js';

// Saturday 2026-11-21 02:30 UTC: still Friday 2026-11-20 in New York, already Saturday in Tokyo.
const NOW = Date.parse('2026-11-21T02:30:00Z');

describe('date presets', () => {
  const table: Array<[string, string, string, string]> = [
    ['today', 'America/New_York', '2026-11-20', '2026-11-20'],
    ['today', 'Asia/Tokyo', '2026-11-21', '2026-11-21'],
    ['yesterday', 'America/New_York', '2026-11-19', '2026-11-19'],
    ['last_7d', 'America/New_York', '2026-11-13', '2026-11-19'],
    ['last_14d', 'UTC', '2026-11-07', '2026-11-20'],
    ['last_28d', 'UTC', '2026-10-24', '2026-11-20'],
    ['last_30d', 'UTC', '2026-10-22', '2026-11-20'],
    ['last_90d', 'UTC', '2026-08-23', '2026-11-20'],
    ['this_week_sun_today', 'America/New_York', '2026-11-15', '2026-11-20'],
    ['this_week_sun_today', 'Asia/Tokyo', '2026-11-15', '2026-11-21'],
    ['this_month', 'UTC', '2026-11-01', '2026-11-21'],
    ['last_month', 'UTC', '2026-10-01', '2026-10-31'],
  ];
  for (const [preset, zone, since, until] of table) {
    it(`${preset} in ${zone} is ${since} to ${until}`, () => {
      expect(resolveDatePreset(preset as never, NOW, zone)).to.deep.equal({ since, until });
    });
  }

  it('ends every last_Nd preset yesterday, leaving today out', () => {
    for (const preset of DATE_PRESETS.filter((p) => p.startsWith('last_') && p.endsWith('d'))) {
      expect(resolveDatePreset(preset, NOW, 'UTC').until, preset).to.equal('2026-11-20');
    }
  });

  it('makes maximum the lifetime window from the first launch to today', () => {
    expect(resolveDatePreset('maximum', NOW, 'UTC', '2025-03-02')).to.deep.equal({ since: '2025-03-02', until: '2026-11-21' });
    expect(resolveDatePreset('maximum', NOW, 'UTC')).to.deep.equal({ since: '2026-11-21', until: '2026-11-21' });
  });

  it('handles last_month across a year boundary', () => {
    expect(resolveDatePreset('last_month', Date.parse('2027-01-15T12:00:00Z'), 'UTC')).to.deep.equal({ since: '2026-12-01', until: '2026-12-31' });
  });
});

describe('sandbox delivery', () => {
  const start = Date.parse('2026-11-10T00:00:00Z');
  const window = { since: '2026-11-10', until: '2026-11-16' };
  const object = { id: '120200000000001', budget: { period: 'daily' as const, amountMinorUnits: 5000 }, history: [{ status: 'ACTIVE', at: start }] };

  it('answers the same numbers for the same question', () => {
    expect(deliver(object, window, 'UTC', NOW)).to.deep.equal(deliver(object, window, 'UTC', NOW));
  });

  it('spends something but never more than the daily budget a day', () => {
    const week = deliver(object, window, 'UTC', NOW);
    expect(week.spendMinorUnits)
      .to.be.greaterThan(0)
      .and.at.most(7 * 5000);
    for (const day of ['2026-11-10', '2026-11-11', '2026-11-12']) {
      expect(deliver(object, { since: day, until: day }, 'UTC', NOW).spendMinorUnits).to.be.at.most(5000);
    }
    expect(week.clicks).to.be.at.most(week.impressions);
    expect(week.results).to.be.at.most(week.clicks);
  });

  it('accrues nothing while paused and nothing in hours not yet over', () => {
    const pausedMidweek = { ...object, history: [...object.history, { status: 'PAUSED', at: Date.parse('2026-11-13T00:00:00Z') }] };
    const firstThreeDays = deliver(object, { since: '2026-11-10', until: '2026-11-12' }, 'UTC', NOW);
    expect(deliver(pausedMidweek, window, 'UTC', NOW)).to.deep.equal(firstThreeDays);
    expect(deliver(object, window, 'UTC', start).spendMinorUnits).to.equal(0);
  });

  it('gives another object other numbers', () => {
    expect(deliver({ ...object, id: '120200000000002' }, window, 'UTC', NOW).impressions).to.not.equal(deliver(object, window, 'UTC', NOW).impressions);
  });
});
