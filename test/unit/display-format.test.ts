// How people read money and times (the console's pages): an amount in minor units with its
// currency's symbol and ISO 4217 minor unit, and an instant in an ad account's time zone, named with
// the abbreviation in force at that instant.

import { csvCell } from '../../surfaces/console/pages/reports.js';
import { expect } from 'chai';
import { formatMoney } from '../../src/money/convert.js';
import { localDateTime } from '../../src/time/zones.js';
import { issueSentence } from '../../surfaces/console/pages/launches.js';

describe('money and times as people read them', () => {
  it('writes minor units with the symbol and the ISO 4217 exponent of each currency', () => {
    const cases: Array<[number, string, string]> = [
      [5000, 'USD', '$50.00'],
      [14000, 'JPY', '¥14,000'],
      [4500, 'EUR', '€45.00'],
      [123456789, 'GBP', '£1,234,567.89'],
      [5, 'USD', '$0.05'],
      [-150, 'USD', '-$1.50'],
      [0, 'JPY', '¥0'],
      // No symbol of its own in English: the amount and the code, three decimals as ISO says.
      [1500, 'KWD', '1.500 KWD'],
      [250, 'CAD', 'CA$2.50'],
    ];
    for (const [amount, currency, shown] of cases) expect(formatMoney(amount, currency), `${amount} ${currency}`).to.equal(shown);
  });

  it("names the zone and the abbreviation in force: winter and summer in New York, Tokyo's", () => {
    expect(localDateTime(Date.UTC(2026, 0, 15, 14, 5), 'America/New_York')).to.equal('2026-01-15 09:05 EST (America/New_York)');
    expect(localDateTime(Date.UTC(2026, 6, 15, 14, 5), 'America/New_York')).to.equal('2026-07-15 10:05 EDT (America/New_York)');
    expect(localDateTime(Date.UTC(2026, 0, 15, 23, 30), 'Asia/Tokyo')).to.match(/^2026-01-16 08:30 (GMT\+9 )?\(Asia\/Tokyo\)$/);
    expect(localDateTime(Date.UTC(2026, 0, 15, 23, 30), 'UTC')).to.equal('2026-01-15 23:30 (UTC)');
  });

  it("turns a preview's issue into a sentence naming the node by its name and the setting", () => {
    const names = new Map([['nd_a', 'Hero 1']]);
    expect(issueSentence({ field: 'ads[nd_a].linkUrl', message: 'is required for objective OUTCOME_TRAFFIC' }, names)).to.equal(
      'Ad “Hero 1”: linkUrl is required for objective OUTCOME_TRAFFIC.',
    );
    expect(issueSentence({ field: 'adSets[nd_b].targeting.countries', message: 'is required.' }, names)).to.equal(
      'Ad set nd_b: targeting.countries is required.',
    );
    expect(issueSentence({ field: 'campaigns', message: 'the launch has no campaign' }, names)).to.equal('campaigns: the launch has no campaign.');
  });
});

describe('console CSV cells', () => {
  it('keeps a text a spreadsheet would run as a formula as text, and leaves numbers and plain text alone', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).to.equal('"\'=HYPERLINK(""http://x"",""y"")"');
    for (const risky of ['+1+1', '-2+3', '@SUM(A1)', '\tx', ' =HYPERLINK(1)', '   @SUM(A1)', '\u00a0+1+1', ' \tx'])
      expect(csvCell(risky)).to.equal(`'${risky}`);
    expect(csvCell('-500')).to.equal('-500');
    expect(csvCell(-500)).to.equal('-500');
    expect(csvCell('Spring, US')).to.equal('"Spring, US"');
    expect(csvCell('Spring sale')).to.equal('Spring sale');
    expect(csvCell(null)).to.equal('');
  });
});
