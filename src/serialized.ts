// Answers served again from an in-memory cache are the same object each time (brand pages, cached
// campaign pages), so their JSON, and whatever a surface makes of it, is made once per object.

const json = new WeakMap<object, string>();

/** The JSON of an answer; made once per answer object. */
export function answerJson(body: unknown): string {
  if (!body || typeof body !== 'object') return JSON.stringify(body);
  let known = json.get(body);
  if (known === undefined) {
    known = JSON.stringify(body);
    json.set(body, known);
  }
  return known;
}

/** `make(answerJson(body))`, kept in `cache` for as long as the answer object lives. */
export function fromAnswerJson<T>(cache: WeakMap<object, T>, body: unknown, make: (json: string) => T): T {
  if (!body || typeof body !== 'object') return make(JSON.stringify(body));
  let made = cache.get(body);
  if (made === undefined) {
    made = make(answerJson(body));
    cache.set(body, made);
  }
  return made;
}
