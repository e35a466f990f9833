// Answers served again as the same object are serialised once; each surface keeps what it makes
// of that JSON per object.

import { expect } from 'chai';
import { answerJson, fromAnswerJson } from '../../src/serialized.js';

describe('serialised answers', () => {
  it('serialises an answer object once, and again after it changes identity', () => {
    const answer = { accounts: [{ brandId: 1 }], nextCursor: null };
    const first = answerJson(answer);
    expect(first).to.equal('{"accounts":[{"brandId":1}],"nextCursor":null}');
    answer.accounts.push({ brandId: 2 });
    // The cached answer object is never changed in the service; the cache shows it is kept per object.
    expect(answerJson(answer)).to.equal(first);
    expect(answerJson({ ...answer })).to.equal('{"accounts":[{"brandId":1},{"brandId":2}],"nextCursor":null}');
  });

  it('keeps what a surface makes of the JSON per answer object and per cache', () => {
    const answer = { ok: true };
    let made = 0;
    const bytes = new WeakMap<object, Buffer>();
    const lengths = new WeakMap<object, number>();
    const a = fromAnswerJson(bytes, answer, (json) => (made++, Buffer.from(json)));
    expect(a.toString()).to.equal('{"ok":true}');
    expect(fromAnswerJson(bytes, answer, () => Buffer.from('other'))).to.equal(a);
    expect(fromAnswerJson(lengths, answer, (json) => json.length)).to.equal(11);
    expect(made).to.equal(1);
  });

  it('does not cache answers that are not objects', () => {
    let made = 0;
    const cache = new WeakMap<object, string>();
    expect(fromAnswerJson(cache, 'text', (json) => (made++, json))).to.equal('"text"');
    expect(fromAnswerJson(cache, null, (json) => (made++, json))).to.equal('null');
    expect(answerJson(42)).to.equal('42');
    expect(made).to.equal(2);
  });
});
