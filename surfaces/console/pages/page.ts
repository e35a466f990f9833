// What a console page handler answers: the page's title and content (the layout adds the rest), or a
// download, and the status when it is not 200.

export interface Page {
  title: string;
  body: string;
  status?: number;
  notice?: string | null;
  error?: string | null;
}

/** A file the page answers instead of HTML (the reports' CSV). */
export interface Download {
  download: { contentType: string; fileName: string; body: string };
}

/** A query string value as one string ('' when absent or sent more than once as something else). */
export function one(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return '';
}
