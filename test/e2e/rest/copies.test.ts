// Ad copy over REST on both adapters: the built-in template generator, and an OpenAI-compatible
// model (a fake chat completions server on loopback) with its good answer, an answer over the
// limits, a malformed answer, a timeout, 429 and 500. Then attaching copy to an ad and publishing it.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative, type Api } from '../../helpers/launch-builders.js';

const PROFILE = {
  voice: ['warm'],
  productDescription: 'Leather running shoes made in Porto',
  website: 'https://shoes.example.com',
  wordsToAvoid: ['cheap', 'Guaranteed'],
};

function expectWithinRules(copy: any, avoid: string[]) {
  const limits =
    copy.platform === 'meta' ? { headlines: 255, primaryTexts: 2200, descriptions: 255 } : { headlines: 100, primaryTexts: 100, descriptions: 100 };
  for (const field of ['headlines', 'primaryTexts', 'descriptions'] as const) {
    expect(copy[field].length, field).to.be.at.least(1);
    for (const t of copy[field] as string[]) {
      expect([...t].length, t).to.be.within(1, limits[field]);
      for (const w of avoid) expect(t.toLowerCase()).to.not.contain(w.toLowerCase());
      if (copy.platform === 'tiktok') expect(/\p{Extended_Pictographic}/u.test(t), t).to.equal(false);
    }
  }
}

for (const dialect of dialects()) {
  describe(`ad copy over REST with the template generator (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let api: Api;
    let shoes: number;

    before(async () => {
      w = await startWorld({ dialect });
      shoes = w.brandId('acme', 'shoes');
      api = brandApi(w, w.key('acme', 'ci'), shoes);
    });
    after(async () => w?.close());

    it('stores and answers the brand profile, replacing it whole', async () => {
      const empty = await api('GET', '/profile');
      expect(empty.body).to.deep.equal({ voice: [], productDescription: null, website: null, wordsToAvoid: [], updatedAt: null });
      const set = await api('PUT', '/profile', PROFILE);
      expect(set.status).to.equal(200);
      expect(set.body).to.deep.include(PROFILE);
      const again = await api('PUT', '/profile', { voice: ['bold'] });
      expect(again.body).to.deep.include({ voice: ['bold'], productDescription: null, wordsToAvoid: [] });
      await api('PUT', '/profile', PROFILE);
    });

    it('generates copy for meta and tiktok from the profile, within the limits and without the words to avoid', async () => {
      const creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
      for (const platform of ['meta', 'tiktok']) {
        const res = await api('POST', '/copies', { platform, tone: 'urgent', angle: 'spring sale: 20% off', creativeIds: [creativeId] });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body).to.deep.include({
          platform,
          tone: 'urgent',
          angle: 'spring sale: 20% off',
          model: 'template',
          creativeIds: [creativeId],
          brandId: shoes,
        });
        expect(res.body.copyGenerationId).to.be.a('number');
        expectWithinRules(res.body, PROFILE.wordsToAvoid);
        expect(res.body.headlines.join(' ')).to.contain('Leather running shoes');
        const got = await api('GET', `/copies/${res.body.copyGenerationId}`);
        expect(got.body).to.deep.equal(res.body);
      }
      const list = await api('GET', '/copies?limit=1');
      expect(list.body.copies).to.have.length(1);
      expect(list.body.copies[0].platform).to.equal('tiktok');
      const next = await api('GET', `/copies?limit=1&cursor=${encodeURIComponent(list.body.nextCursor)}`);
      expect(next.body.copies[0].platform).to.equal('meta');
    });

    it('uses the brand voice without a tone and the request productDescription over the profile', async () => {
      const res = await api('POST', '/copies', { platform: 'meta', productDescription: 'Wool hiking socks' });
      expect(res.status).to.equal(201);
      expect(res.body).to.deep.include({ tone: null, voice: ['warm'], productDescription: 'Wool hiking socks' });
      expect(res.body.headlines.join(' ')).to.contain('Wool hiking socks');
    });

    it('refuses unknown fields, an unknown platform, and a creative of another brand', async () => {
      const table: Array<[unknown, string, string]> = [
        [{ platform: 'meta', colour: 'red' }, 'colour', 'unrecognized_key'],
        [{ platform: 'myspace' }, 'platform', 'invalid_value'],
        [{ platform: 'meta', tone: 'angry' }, 'tone', 'invalid_value'],
        [{ platform: 'meta', creativeIds: [999999] }, 'creativeIds[0]', 'invalid_value'],
      ];
      for (const [body, field, code] of table) {
        const res = await api('POST', '/copies', body);
        expect(res.status, field).to.equal(400);
        expect(
          res.body.error.details.map((d: any) => [d.field, d.code]),
          field,
        ).to.deep.include([field, code]);
      }
    });

    it('attaches a copy to an ad (its first texts unless the request names others) and publishes it to the sandbox', async () => {
      const ci = w.key('acme', 'ci');
      const copy = (await api('POST', '/copies', { platform: 'meta', tone: 'friendly' })).body;
      const built = await buildLaunch(api, { creativeId: await uploadCreative(w, ci, shoes), ad: { headline: undefined, primaryText: undefined } });
      const adId = built.adIds[0];
      const attached = await api('PATCH', `/launches/${built.launchId}/nodes/${adId}`, { copyGenerationId: copy.copyGenerationId });
      expect(attached.status, JSON.stringify(attached.body)).to.equal(200);
      expect(attached.body.properties).to.deep.include({
        copyGenerationId: copy.copyGenerationId,
        headline: copy.headlines[0],
        primaryText: copy.primaryTexts[0],
        description: copy.descriptions[0],
      });
      const own = await api('PATCH', `/launches/${built.launchId}/nodes/${adId}`, {
        copyGenerationId: copy.copyGenerationId,
        properties: { headline: 'My own headline' },
      });
      expect(own.body.properties).to.deep.include({ headline: 'My own headline', primaryText: copy.primaryTexts[0] });
      await publish(api, built.launchId);
      const launch = await api('GET', `/launches/${built.launchId}`);
      const ad = launch.body.campaigns[0].adSets[0].ads[0];
      const sandbox = await w.service.knex('sandbox_objects').where({ object_id: ad.platformId }).first();
      expect(JSON.parse(sandbox.settings)).to.deep.include({
        headline: 'My own headline',
        primaryText: copy.primaryTexts[0],
        description: copy.descriptions[0],
      });
    });

    it('refuses a TikTok copy on a Meta ad at attach time, and validation names a copy that no longer exists', async () => {
      const tiktok = (await api('POST', '/copies', { platform: 'tiktok' })).body;
      const built = await buildLaunch(api, { creativeId: await uploadCreative(w, w.key('acme', 'ci'), shoes) });
      const wrong = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { copyGenerationId: tiktok.copyGenerationId });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error.details[0]).to.deep.include({ field: 'copyGenerationId' });
      expect(wrong.body.error.details[0].message).to.match(/written for tiktok; this ad publishes to meta/);
      const missing = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { copyGenerationId: 999999 });
      expect(missing.status).to.equal(400);
      expect(missing.body.error.details.map((d: any) => d.field)).to.deep.equal(['copyGenerationId']);
      const viaProperties = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { properties: { copyGenerationId: 999999 } });
      expect(viaProperties.status).to.equal(400);
      expect(viaProperties.body.error.details.map((d: any) => d.field)).to.deep.equal(['properties.copyGenerationId']);
      // A copy that goes away after it was attached is caught when publishing.
      const meta = (await api('POST', '/copies', { platform: 'meta' })).body;
      expect(
        (await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { properties: { copyGenerationId: meta.copyGenerationId } })).status,
      ).to.equal(200);
      await w.service.knex('copy_generations').where({ id: meta.copyGenerationId }).delete();
      const preview = await api('POST', `/launches/${built.launchId}/publish`, {}, idem('preview'));
      expect(preview.status).to.equal(400);
      expect(preview.body.error.details).to.deep.include({
        field: `ads[${built.adIds[0]}].copyGenerationId`,
        message: `copy ${meta.copyGenerationId} does not exist in this brand`,
      });
    });
  });

  describe(`ad copy over REST with an OpenAI-compatible model (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let api: Api;
    let model: FakeOpenAIServer;
    const good = { headlines: ['Run lighter', 'Porto-made runners'], primaryTexts: ['Leather runners, stitched in Porto.'], descriptions: ['Free returns'] };
    const count = async () => Number((await w.service.knex('copy_generations').count({ n: '*' }).first())!.n);

    before(async () => {
      model = await new FakeOpenAIServer().start();
      w = await startWorld({
        dialect,
        env: {
          COPY_MODEL_URL: model.url,
          COPY_MODEL: 'fake-copy-1',
          COPY_MODEL_API_KEY: 'sk-test',
          COPY_MODEL_TIMEOUT_MS: '2000',
          COPY_MODEL_MAX_RETRIES: '1',
        },
      });
      api = brandApi(w, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
      await api('PUT', '/profile', PROFILE);
    });
    beforeEach(() => model.reset());
    after(async () => {
      await w?.close();
      await model?.close();
    });

    it("stores a good answer, naming the model, after asking for structured output with the creatives' type and size", async () => {
      const creativeId = await uploadCreative(w, w.key('acme', 'ci'), w.brandId('acme', 'shoes'));
      model.script({ kind: 'content', content: good });
      const res = await api('POST', '/copies', { platform: 'meta', tone: 'professional', angle: 'new season', creativeIds: [creativeId] });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.deep.include({ ...good, model: 'fake-copy-1', droppedTexts: 0 });
      expect(model.requests).to.have.length(1);
      const sent = model.requests[0];
      expect(sent.headers.authorization).to.equal('Bearer sk-test');
      expect(sent.body.model).to.equal('fake-copy-1');
      expect(sent.body.response_format.type).to.equal('json_schema');
      expect(sent.body.response_format.json_schema.schema.required).to.deep.equal(['headlines', 'primaryTexts', 'descriptions']);
      const prompt = sent.body.messages.map((m: any) => m.content).join('\n');
      expect(prompt).to.contain('image 1080x1080').and.contain('Tone: professional').and.contain('Angle: new season').and.contain('"cheap"');
    });

    it('drops texts over the limits, with emoji on TikTok or with a word to avoid, and regenerates what is missing', async () => {
      model.script(
        { kind: 'content', content: { headlines: ['x'.repeat(101), 'Fly 🚀', 'Cheap runners'], primaryTexts: ['Good text'], descriptions: ['ok'] } },
        { kind: 'content', content: { headlines: ['Run lighter'], primaryTexts: ['y'.repeat(150)], descriptions: [] } },
      );
      const res = await api('POST', '/copies', { platform: 'tiktok' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.deep.include({ headlines: ['Run lighter'], primaryTexts: ['Good text'], descriptions: ['ok'], droppedTexts: 4 });
      // The second request told the model what was refused.
      expect(model.requests[1].body.messages[1].content).to.contain('refused').and.contain('contains emoji');
    });

    it('drops model texts a one-line or multi-line field refuses (control, bidirectional and separator characters); a CR LF is kept as a line feed', async () => {
      model.script({
        kind: 'content',
        content: {
          headlines: ['Run\u001b[31m lighter', 'Run \u202Eright', 'Two\nlines', 'Clean headline'],
          primaryTexts: ['Line one\r\nLine two', 'Bell\u0007text'],
          descriptions: ['ok\u2028desc', 'Fi\ufeffne', 'Free returns'],
        },
      });
      const res = await api('POST', '/copies', { platform: 'meta' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.deep.include({
        headlines: ['Clean headline'],
        primaryTexts: ['Line one\nLine two'],
        descriptions: ['Free returns'],
        droppedTexts: 6,
      });
      // Attached to an ad, the copy's texts are what the ad's own fields accept.
      const built = await buildLaunch(api, { ad: { headline: undefined, primaryText: undefined } });
      const attached = await api('PATCH', `/launches/${built.launchId}/nodes/${built.adIds[0]}`, { copyGenerationId: res.body.copyGenerationId });
      expect(attached.status, JSON.stringify(attached.body)).to.equal(200);
      expect(attached.body.properties).to.deep.include({ headline: 'Clean headline', primaryText: 'Line one\nLine two', description: 'Free returns' });
    });

    it('counts TikTok text as TikTok does: a Chinese or Japanese character counts two', async () => {
      model.script({
        kind: 'content',
        content: { headlines: ['春'.repeat(51), 'Spring run'], primaryTexts: ['軽い'.repeat(26), '軽いランニング'], descriptions: ['返品無料'] },
      });
      const res = await api('POST', '/copies', { platform: 'tiktok' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.deep.include({ headlines: ['Spring run'], primaryTexts: ['軽いランニング'], descriptions: ['返品無料'], droppedTexts: 2 });
      // The next answer is told why: as TikTok counts them.
      model.script(
        { kind: 'content', content: { headlines: ['春'.repeat(60)], primaryTexts: ['ok'], descriptions: ['ok'] } },
        { kind: 'content', content: { headlines: ['Short'], primaryTexts: [], descriptions: [] } },
      );
      const again = await api('POST', '/copies', { platform: 'tiktok' });
      expect(again.status, JSON.stringify(again.body)).to.equal(201);
      expect(model.requests.at(-1)!.body.messages[1].content).to.contain('120 characters as TikTok counts them');
    });

    const failures: Array<[string, () => void, RegExp]> = [
      [
        'a malformed answer (three times)',
        () =>
          model.script(
            { kind: 'raw', body: '{"choices": [{"message": {"content": "not json"}}]}' },
            { kind: 'content', content: 'still not json' },
            { kind: 'content', content: { headlines: 'one' } },
          ),
        /no usable answer in 3 attempts/,
      ],
      [
        'a timeout',
        () => model.script({ kind: 'content', content: good, delayMs: 8_000 }, { kind: 'content', content: good, delayMs: 8_000 }),
        /did not answer within COPY_MODEL_TIMEOUT_MS \(2000 ms\), retries included/,
      ],
      [
        '429 after the retries',
        () => model.script({ kind: 'error', status: 429, retryAfterMs: 10 }, { kind: 'error', status: 429, retryAfterMs: 10 }),
        /rate limiting/,
      ],
      [
        '500 after the retries',
        () => model.script({ kind: 'error', status: 500, retryAfterMs: 10 }, { kind: 'error', status: 500, retryAfterMs: 10 }),
        /HTTP 500/,
      ],
    ];
    it('COPY_MODEL_TIMEOUT_MS bounds the whole generation: a model that stalls gets one request, no retry or regeneration after the deadline', async () => {
      model.reset();
      model.script(...Array.from({ length: 6 }, () => ({ kind: 'content' as const, content: good, delayMs: 8_000 })));
      const res = await api('POST', '/copies', { platform: 'meta' });
      expect(res.status).to.equal(503);
      expect(res.body.error.message).to.match(/within COPY_MODEL_TIMEOUT_MS \(2000 ms\), retries included/);
      // COPY_MODEL_MAX_RETRIES=1 and three regenerations would have made 6 requests of 2000 ms each before.
      expect(model.requests).to.have.length(1);
      expect(model.pending).to.equal(5);
      model.reset();
    });

    for (const [what, arrange, message] of failures) {
      it(`answers 503 unavailable for ${what}, and stores nothing`, async () => {
        const before = await count();
        arrange();
        const res = await api('POST', '/copies', { platform: 'meta' });
        expect(res.status, JSON.stringify(res.body)).to.equal(503);
        expect(res.body.error.code).to.equal('unavailable');
        expect(res.body.error.message).to.match(message);
        expect(res.body.error.details).to.deep.equal({ model: 'fake-copy-1' });
        expect(await count()).to.equal(before);
      });
    }

    it("retries a 429 once (the package's own retry) and stores the answer that follows", async () => {
      model.script({ kind: 'error', status: 429, retryAfterMs: 10 }, { kind: 'content', content: good });
      const res = await api('POST', '/copies', { platform: 'meta' });
      expect(res.status).to.equal(201);
      expect(model.requests).to.have.length(2);
    });
  });
}
