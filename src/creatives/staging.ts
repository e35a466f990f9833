// An uploaded file as it arrives (paths.md "Limits": an accepted upload is streamed to the creatives
// storage while it is hashed and checked): written to the creatives folder's staging area chunk by
// chunk, hashed (sha256) and counted as it goes, its head checked as soon as it is in (format, the
// kind's cap, an image's declared pixels), so nothing ever holds the whole file. The upload operation
// then reads what it is from the staged file and moves it into place (storage.ts); a half-received
// upload's staged file is removed by whoever staged it, and leftovers of a crashed process at start-up.

import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { UploadHeadCheck } from '../catalogue/define.js';
import type { StagedUpload } from '../catalogue/invoke-types.js';
import { storageFault } from '../pipeline/faults.js';
import { HEAD_BYTES, capOf } from './media.js';

/** The folder of the creatives folder that holds files still arriving. */
export const stagingDir = (creativesDir: string): string => path.join(creativesDir, '.incoming');

/** How old a staged file must be before start-up removes it (a process that staged it died). */
const LEFTOVER_MS = 3_600_000;

/**
 * A file part of an upload being written to the staging area: a Writable that hashes, counts and
 * writes each chunk, checks the head once it holds HEAD_BYTES (or the whole file, if smaller), and
 * fails as soon as the file passes its kind's cap. `staged()` answers the finished file.
 */
export class StagingFile extends Writable {
  readonly path: string;
  private readonly hash = crypto.createHash('sha256');
  private file!: fs.WriteStream;
  private head: Buffer[] = [];
  private headBytes = 0;
  private checked = false;
  private cap = Infinity;
  private size = 0;
  /** Callbacks of chunks written past the high-water mark, called at the next 'drain'. */
  private readonly waiting: Array<(err?: Error | null) => void> = [];

  constructor(
    creativesDir: string,
    private readonly field: string,
    /** What the head refuses (the operation's upload.checkHead: media.ts checkHead for creatives). */
    private readonly check: UploadHeadCheck,
  ) {
    super();
    this.path = path.join(stagingDir(creativesDir), `${crypto.randomBytes(12).toString('hex')}.part`);
    this.on('drain', () => {
      for (const done of this.waiting.splice(0)) done();
    });
  }

  // The staging file is made before the first chunk: a folder that cannot be written fails the
  // stream (503 unavailable, the storage), never the code that started it.
  override _construct(done: (err?: Error | null) => void): void {
    fsp.mkdir(path.dirname(this.path), { recursive: true }).then(
      () => {
        this.file = fs.createWriteStream(this.path, { flags: 'wx' });
        this.file.on('error', (err) => this.destroy(storageFault('stage an uploaded file', err) as Error));
        done();
      },
      (err: unknown) => done(storageFault('stage an uploaded file', err) as Error),
    );
  }

  /**
   * A chunk's callback is called once the stream can take more (at once below its high-water mark,
   * else at its next 'drain'), not once that chunk is written. The multipart parser (formidable)
   * pauses the request for each chunk and resumes it in that chunk's callback: called once the chunk
   * was written, it resumed the request while the chunks after it still waited in this stream's
   * buffer, so a request read as fast as loopback sends queued here (about 1 MB an upload, twelve
   * uploads at once: measured in bench/upload-memory.ts). Now the request stays paused until the
   * queue has drained: each upload holds a chunk or two in memory, whatever the client's pace.
   */
  override write(chunk: unknown, encoding?: BufferEncoding | ((err?: Error | null) => void), callback?: (err?: Error | null) => void): boolean {
    const done = typeof encoding === 'function' ? encoding : callback;
    const more = typeof encoding === 'function' || encoding === undefined ? super.write(chunk) : super.write(chunk, encoding);
    if (done) {
      if (more) process.nextTick(done);
      else this.waiting.push(done);
    }
    return more;
  }

  /** Checks the head gathered so far (what the check answers: nothing, or a promise of it). */
  private checkHeadNow(): void | Promise<void> {
    const head = Buffer.concat(this.head, this.headBytes);
    this.head = [head];
    this.checked = true;
    this.cap = capOf(head);
    return this.check(head, this.size, this.field);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    let checking: void | Promise<void> = undefined;
    try {
      this.size += chunk.length;
      this.hash.update(chunk);
      if (!this.checked) {
        this.head.push(chunk);
        this.headBytes += chunk.length;
        if (this.headBytes >= HEAD_BYTES) checking = this.checkHeadNow();
      } else if (this.size > this.cap) {
        // Past its kind's cap (an image's 8 MB): refused now, not once the rest has arrived.
        checking = this.check(this.head[0], this.size, this.field);
      }
    } catch (err) {
      done(err as Error);
      return;
    }
    // Written at once when the check is synchronous (creatives' is): a chunk held for a tick more is
    // memory held longer, twelve uploads over.
    const write = () => (this.file.write(chunk) ? done() : this.file.once('drain', () => done()));
    if (checking instanceof Promise) checking.then(write, (err: Error) => done(err));
    else write();
  }

  override _final(done: (err?: Error | null) => void): void {
    let checking: void | Promise<void>;
    try {
      // A file smaller than the head is checked now; every file again with its whole size.
      checking = this.checked ? this.check(this.head[0], this.size, this.field) : this.checkHeadNow();
    } catch (err) {
      done(err as Error);
      return;
    }
    const end = () => this.file.end(() => done());
    if (checking instanceof Promise) checking.then(end, (err: Error) => done(err));
    else end();
  }

  // Done once the file is closed (its open may still be under way): only then can it be removed.
  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.file || this.file.closed) return done(err);
    this.file.once('close', () => done(err));
    this.file.destroy();
  }

  /** The finished file: its place, size, sha256 and head (call once it finished). */
  staged(fileName: string): StagedUpload {
    return { field: this.field, path: this.path, size: this.size, sha256: this.hash.digest('hex'), head: this.head[0] ?? Buffer.alloc(0), fileName };
  }
}

/** Removes a staged file (a refused or half-received upload, or one already moved into place). */
export async function dropStaged(filePath: string): Promise<void> {
  await fsp.rm(filePath, { force: true }).catch(() => {});
}

/** Stops a staging file (if it still runs), waits until its file is closed, then removes it. */
export async function discard(stage: StagingFile): Promise<void> {
  if (!stage.closed) await new Promise<void>((resolve) => stage.once('close', () => resolve()).destroy());
  await dropStaged(stage.path);
}

/** Removes staged files older than an hour: what a process that died mid-upload left behind. */
export async function clearLeftovers(creativesDir: string, now = Date.now()): Promise<number> {
  const dir = stagingDir(creativesDir);
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const full = path.join(dir, name);
    const stat = await fsp.stat(full).catch(() => null);
    if (stat && now - stat.mtimeMs > LEFTOVER_MS) {
      await fsp.rm(full, { force: true, recursive: true }).catch(() => {});
      removed++;
    }
  }
  return removed;
}
