// The money module: ISO 4217 exponents, FX_RATES parsing (a bad value stops start-up), exact
// conversion of minor units to US cents rounded up, and the amounts messages show.

import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { ServiceError } from '../../src/errors.js';
import { countPerAccount, formatMinor, formatUsdCents, toUsdCents } from '../../src/money/convert.js';
import { exponentOf, isCurrency } from '../../src/money/currencies.js';
import { parseFxRates } from '../../src/money/fx-rates.js';

describe('money across currencies', () => {
  it('takes exponents from the ISO 4217 list, where Intl differs', () => {
    const cases: Array<[string, number]> = [
      ['USD', 2],
      ['EUR', 2],
      ['JPY', 0],
      ['KRW', 0],
      ['KWD', 3],
      ['BHD', 3],
      // Intl.NumberFormat shows 0 fraction digits for these three; ISO 4217 says 3, 2 and 2.
      ['IQD', 3],
      ['HUF', 2],
      ['COP', 2],
    ];
    for (const [code, exponent] of cases) expect(exponentOf(code), code).to.equal(exponent);
    expect(exponentOf('XYZ')).to.equal(null);
    expect(isCurrency('jpy')).to.equal(false);
  });

  it('parses FX_RATES exactly as written, USD always 1', () => {
    const rates = parseFxRates(' EUR=1.08, GBP=1.27,JPY=0.0066 ,KWD=3.25,USD=1.000');
    expect([...rates.keys()].sort()).to.deep.equal(['EUR', 'GBP', 'JPY', 'KWD', 'USD']);
    expect(rates.get('JPY')).to.deep.equal({ units: 66n, scale: 4, text: '0.0066' });
    expect(rates.get('USD')).to.deep.include({ units: 1n, scale: 0 });
    expect([...parseFxRates(undefined).keys()]).to.deep.equal(['USD']);
    expect([...parseFxRates('').keys()]).to.deep.equal(['USD']);
  });

  it('refuses a malformed FX_RATES with a message naming the bad pair, and so does the configuration', () => {
    const bad: Array<[string, RegExp]> = [
      ['EUR', /"EUR" is not CUR=rate/],
      ['EUR=abc', /rate "abc", which is not a plain decimal number/],
      ['EUR=-1.08', /not a plain decimal number/],
      ['EUR=1e3', /not a plain decimal number/],
      ['EUR=0', /rate of zero/],
      ['eur=1.08', /"eur", which is not an ISO 4217 code/],
      ['XYZ=2', /"XYZ", which is not an ISO 4217 code/],
      ['EUR=1.08,EUR=1.09', /EUR a second time/],
      ['USD=1.01', /USD a rate other than 1/],
      ['EUR=1.08,,JPY=0.0066', /is not CUR=rate/],
    ];
    for (const [raw, message] of bad) {
      expect(() => parseFxRates(raw), raw).to.throw(Error, message);
      expect(() => loadConfig({ FX_RATES: raw }), raw).to.throw(Error, /^FX_RATES: /);
    }
  });

  it('converts minor units to US cents with exact decimals, rounding up to the next cent', () => {
    const rates = parseFxRates('EUR=1.08,JPY=0.0066,KWD=3.2567,GBP=1.27');
    // 14,000 yen at $0.0066 = $92.40 exactly; 14,001 yen = $92.4066, which counts 9,241 cents.
    expect(toUsdCents(14_000, 'JPY', rates)).to.equal(9_240);
    expect(toUsdCents(14_001, 'JPY', rates)).to.equal(9_241);
    expect(toUsdCents(1, 'JPY', rates)).to.equal(1);
    // 50.00 EUR at 1.08 = $54.00; 0.01 EUR = $0.0108, one cent and a bit: 2 cents.
    expect(toUsdCents(5_000, 'EUR', rates)).to.equal(5_400);
    expect(toUsdCents(1, 'EUR', rates)).to.equal(2);
    // KWD has three decimals: 1.500 KWD (1,500 fils) at 3.2567 = $4.88505, counted as 489 cents.
    expect(toUsdCents(1_500, 'KWD', rates)).to.equal(489);
    expect(toUsdCents(1_000, 'KWD', rates)).to.equal(326);
    expect(toUsdCents(12_345, 'USD', rates)).to.equal(12_345);
    expect(toUsdCents(0, 'JPY', rates)).to.equal(0);
    // 0.1 + 0.2 style errors cannot happen: 3 x 0.0066 is 0.0198 exactly, 2 cents.
    expect(toUsdCents(3, 'JPY', rates)).to.equal(2);
    // Large amounts stay exact: 10 billion yen.
    expect(toUsdCents(10_000_000_000, 'JPY', rates)).to.equal(6_600_000_000);
  });

  it('answers 503 unavailable naming the currency when it has no rate', () => {
    const rates = parseFxRates('EUR=1.08');
    let caught: unknown;
    try {
      toUsdCents(14_000, 'JPY', rates);
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(ServiceError);
    expect((caught as ServiceError).code).to.equal('unavailable');
    expect((caught as ServiceError).message).to.match(/^The ceiling cannot be checked: no exchange rate for JPY\./);
    expect((caught as ServiceError).details).to.deep.equal({ reason: 'no_exchange_rate', currency: 'JPY' });
  });

  it('converts each ad account total once and rounds it up, never adding currencies before converting', () => {
    const rates = parseFxRates('JPY=0.0066,KWD=3.2567');
    const counted = countPerAccount(
      [
        { accountId: 'act_jp', currency: 'JPY', amountMinorUnits: 7_001 },
        { accountId: 'act_kw', currency: 'KWD', amountMinorUnits: 1_500 },
        { accountId: 'act_jp', currency: 'JPY', amountMinorUnits: 7_000 },
      ],
      rates,
    );
    // 14,001 yen in one account: 9,241 cents (campaign by campaign it would be 4,621 + 4,620).
    expect(counted.accounts).to.deep.equal([
      { accountId: 'act_jp', currency: 'JPY', amountMinorUnits: 14_001, countedUsdCents: 9_241 },
      { accountId: 'act_kw', currency: 'KWD', amountMinorUnits: 1_500, countedUsdCents: 489 },
    ]);
    expect(counted.totalUsdCents).to.equal(9_730);
  });

  it('formats amounts in their own minor units and US cents as dollars', () => {
    expect(formatMinor(14_000, 'JPY')).to.equal('14,000 JPY');
    expect(formatMinor(1_500, 'KWD')).to.equal('1.500 KWD');
    expect(formatMinor(5, 'EUR')).to.equal('0.05 EUR');
    expect(formatMinor(123_456_789, 'USD')).to.equal('1,234,567.89 USD');
    expect(formatUsdCents(9_240)).to.equal('$92.40');
    expect(formatUsdCents(50_000)).to.equal('$500.00');
    expect(formatUsdCents(7)).to.equal('$0.07');
  });
});
