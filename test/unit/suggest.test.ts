// The command lines' "did you mean": near misses name the command, far ones name nothing.

import { expect } from 'chai';
import { nearestName } from '../../surfaces/cli/suggest.js';

describe('nearestName (did you mean)', () => {
  const commands = ['list-brands', 'list-launches', 'create-launch', 'launch-campaign', 'migrate', 'serve'];
  const cases: Array<[string, string | null]> = [
    ['list-brand', 'list-brands'],
    ['lsit-brands', 'list-brands'],
    ['List-Launches', 'list-launches'],
    ['migrat', 'migrate'],
    ['serv', 'serve'],
    ['create-lau', 'create-launch'],
    ['launch-rocket', null],
    ['frobnicate', null],
    ['x', null],
  ];
  for (const [typed, expected] of cases) {
    it(`"${typed}" → ${expected === null ? 'nothing' : `"${expected}"`}`, () => {
      expect(nearestName(typed, commands)).to.equal(expected);
    });
  }
});
