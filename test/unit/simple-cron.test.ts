// The simple cron schedules computed without cron-parser (src/jobs/simple-cron.ts) give the times
// cron-parser gives, minute for minute, from any moment (whole minutes included); every other form
// is left to cron-parser.

import { createRequire } from 'node:module';
import { expect } from 'chai';
import { nextSimpleCronTime } from '../../src/jobs/simple-cron.js';

const cronParser = createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser');
const byParser = (cron: string, after: number) =>
  cronParser
    .parseExpression(cron, { currentDate: new Date(after), tz: 'UTC' })
    .next()
    .getTime();

describe('simple cron schedules', () => {
  it('give the times cron-parser gives, from whole minutes and from between them', () => {
    const schedules = ['17 3 * * *', '*/10 * * * *', '*/15 * * * *', '0 * * * *', '* * * * *', '30 */6 * * *', '0 0 * * *', '59 23 * * *', '*/7 */5 * * *'];
    const start = Date.UTC(2030, 2, 30, 22, 0, 0);
    for (const cron of schedules) {
      for (let k = 0; k < 400; k++) {
        // Whole minutes, and moments between them (seconds and milliseconds), over more than a day.
        const after = start + k * 4 * 60_000 + (k % 3 === 0 ? 0 : (k * 7919) % 60_000);
        expect(nextSimpleCronTime(cron, after), `${cron} after ${new Date(after).toISOString()}`).to.equal(byParser(cron, after));
      }
    }
  });

  it('leaves every other form to cron-parser', () => {
    for (const cron of [
      '0 9 * * 1',
      '0 9 1 * *',
      '0 9 * 1 *',
      '1,2 * * * *',
      '1-5 * * * *',
      '60 * * * *',
      '0 24 * * *',
      '*/0 * * * *',
      '0 9 * * *  *',
      'nonsense',
    ]) {
      expect(nextSimpleCronTime(cron, Date.UTC(2030, 0, 1)), cron).to.equal(null);
    }
  });
});
