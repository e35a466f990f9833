// An email address is one identity. It is compared after Unicode NFKC and lower-case folding, byte
// for byte: `OLIVE@ACME.TEST` and its full-width twin are `olive@acme.test`, while `olivé@…`,
// `olive@acmé…` and a dotted capital I (U+0130, which lower-cases to `i` and a combining dot) are
// other addresses. MariaDB's default collations fold accents, so the users' email column uses a
// binary collation (migration 20261210300000_identity_binary_collation) and SQLite compares bytes.

/** The form an email is stored and compared in: trimmed, NFKC, lower case (NFKC again, as lower-casing can undo it). */
export function foldEmail(email: string): string {
  return email.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
}

/**
 * What an email and its look-alikes share, for the sign-in limit only (never to find an account):
 * the folded email without accents or other combining marks, a dotless i read as i. `olivé@acmé.test`
 * and `olİve@acme.test` guess against `olive@acme.test`'s five tries, not five of their own.
 */
export function emailLookalikeKey(email: string): string {
  return foldEmail(email).normalize('NFKD').replace(/\p{M}/gu, '').replace(/ı/g, 'i').normalize('NFKC');
}
