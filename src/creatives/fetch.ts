// Fetches a creative a caller names by URL, through the outbound client under the caller-URL address
// rule, with the by-URL size caps; every failure is a 400 validation_failed naming `url`.

import { validationFailed } from '../errors.js';
import { callerTarget } from '../outbound/address-policy.js';
import { OutboundError, type OutboundClient } from '../outbound/client.js';
import { checkHead, detectFormat, inspectMedia, type MediaInfo } from './media.js';

const MB = 1024 * 1024;
/** Largest image fetched by URL. */
export const URL_IMAGE_MAX_BYTES = 8 * MB;
/** Largest video fetched by URL: reading stops past it, whatever the type. */
export const URL_VIDEO_MAX_BYTES = 30 * MB;

const megabytes = (n: number) => `${n / MB} MB (${n} bytes)`;

function urlFailed(code: string, message: string) {
  return validationFailed([{ field: 'url', code, message }]);
}

/** The file's name from the URL's last path segment, or its host when the path names none. */
function nameOf(url: string): string {
  const parsed = new URL(url);
  const last = parsed.pathname.split('/').filter(Boolean).pop() ?? '';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // A malformed escape: the segment as written is still a usable name.
  }
  // A decoded name that is not text (a NUL, a control character) is never stored: the segment as written is.
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  if (/[\u0000-\u001f\u007f]/.test(name)) name = last;
  return (name.trim() || parsed.hostname).slice(0, 255);
}

/**
 * Fetches the creative at `url` (a caller-given URL: the address rule applies before any connection
 * and on the resolved address; no redirects), refusing a body past the caps, a non-2xx answer and any
 * bytes that are not an accepted format (read from the bytes, never the Content-Type). `timeoutMs`
 * bounds the whole exchange, body included.
 */
export async function fetchCreative(outbound: OutboundClient, url: string, timeoutMs: number): Promise<{ bytes: Buffer; media: MediaInfo; fileName: string }> {
  let answer;
  let cap = URL_VIDEO_MAX_BYTES;
  try {
    answer = await outbound.request(callerTarget(url), {
      headers: { accept: 'image/png, image/jpeg, video/mp4' },
      timeoutMs,
      maxResponseBytes: URL_VIDEO_MAX_BYTES,
      // Counted as it arrives and cut at its kind's cap, known from the first bytes (an image's
      // header past its pixel limits, or bytes of no accepted format, end it there).
      capOf: (head) => {
        checkHead(head, 1, 'url');
        cap = detectFormat(head) === 'mp4' ? URL_VIDEO_MAX_BYTES : URL_IMAGE_MAX_BYTES;
        return cap;
      },
      headBytes: 32 * 1024,
      readBodyOf: (status) => status >= 200 && status <= 299,
    });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.kind === 'too_large') {
      const what = cap === URL_IMAGE_MAX_BYTES ? 'an image' : 'a file';
      throw urlFailed('too_big', `must name ${what} of at most ${megabytes(cap)}; reading stopped past that`);
    }
    // A network failure may come before the answer or halfway through its body: "could not be read" is true of both.
    const what = err.kind === 'refused' ? 'could not be fetched' : err.kind === 'timeout' ? 'did not answer in time' : 'could not be read';
    throw urlFailed('invalid_value', `${what}: ${err.message}`);
  }
  if (answer.status < 200 || answer.status > 299) {
    const moved = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed; send the final URL)' : '';
    throw urlFailed('invalid_value', `answered HTTP ${answer.status}${moved}; it must answer 2xx with the file`);
  }
  const bytes = answer.body;
  return { bytes, media: inspectMedia(bytes, 'url'), fileName: nameOf(url) };
}
