// The catalogue the service starts from: each operation as the generated index records it (its
// definition without functions), its handler and other functions loaded with its area's module on
// the first call of one of the area's operations. Routes, tools and schemas need only the index, so
// a server answers its first request without loading every area's handlers.

import type { OperationDefinition } from './define.js';

/** One area of the catalogue: its name and the loader of its operations module. */
export interface OperationArea {
  area: string;
  load(): Promise<OperationDefinition[]>;
}

/** One operation as the index records it: the area that defines it, its definition without functions, and which of them it has. */
export interface IndexedOperation extends Omit<OperationDefinition, 'handler' | 'onTimeout' | 'upload'> {
  area: string;
  onTimeout?: true;
  upload?: { field: string; maxBytes: number; checkHead?: true };
}

/** The index entry of `op`, defined in `area` (what `npm run generate` writes, and what loading an area checks). */
export function indexEntry(op: OperationDefinition, area: string): IndexedOperation {
  const { handler: _handler, onTimeout, upload, ...rest } = op;
  const functions = {
    ...(onTimeout ? { onTimeout: true } : {}),
    ...(upload ? { upload: { field: upload.field, maxBytes: upload.maxBytes, ...(upload.checkHead ? { checkHead: true } : {}) } } : {}),
  };
  // Through JSON, as the index file is read: undefined members dropped, objects copied.
  return JSON.parse(JSON.stringify({ area, ...rest, ...functions })) as IndexedOperation;
}

/** Loads `area` and checks that each of its operations is the one the index recorded. */
async function loadArea(area: OperationArea, entries: IndexedOperation[]): Promise<Map<string, OperationDefinition>> {
  const defined = new Map((await area.load()).map((op) => [op.name, op]));
  for (const entry of entries) {
    const op = defined.get(entry.name);
    if (!op || JSON.stringify(indexEntry(op, area.area)) !== JSON.stringify(entry))
      throw new Error(`operation "${entry.name}" of area ${area.area} is not what src/wiring/operations.generated.json records: run npm run generate`);
  }
  return defined;
}

/**
 * The operations of `index` as definitions for the Catalogue: the index's members as they are, and
 * functions that load the operation's area on first use (once per area) and call the definition's own.
 */
export function lazyDefinitions(index: IndexedOperation[], areas: OperationArea[]): OperationDefinition[] {
  const loading = new Map<string, Promise<Map<string, OperationDefinition>>>();
  const load = (entry: IndexedOperation): Promise<OperationDefinition> => {
    let defined = loading.get(entry.area);
    if (!defined) {
      const area = areas.find((a) => a.area === entry.area);
      if (!area) throw new Error(`operation "${entry.name}": the index names area ${entry.area}, which operation-areas.ts does not list`);
      defined = loadArea(
        area,
        index.filter((e) => e.area === entry.area),
      );
      loading.set(entry.area, defined);
      // A failed load (a file missing mid-deploy) is tried again by the next call.
      defined.catch(() => loading.delete(entry.area));
    }
    return defined.then((ops) => ops.get(entry.name)!);
  };
  return index.map((entry) => {
    const { area: _area, onTimeout, upload, ...members } = entry;
    let real: OperationDefinition | undefined;
    const definition = async () => (real ??= await load(entry));
    const op: OperationDefinition = {
      ...members,
      // Once loaded, the area's handler is called directly: no extra wait on later calls.
      handler: (ctx, input) => (real ? real.handler(ctx, input) : definition().then((d) => d.handler(ctx, input))),
    };
    // Asked when the request budget runs out, which is after the handler (and so its area) was loaded.
    if (onTimeout) op.onTimeout = (input) => real?.onTimeout?.(input);
    if (upload) {
      const checkHead = upload.checkHead
        ? async (head: Buffer, size: number, field: string) => (await definition()).upload?.checkHead?.(head, size, field)
        : undefined;
      op.upload = { field: upload.field, maxBytes: upload.maxBytes, ...(checkHead ? { checkHead } : {}) };
    }
    return op;
  });
}
